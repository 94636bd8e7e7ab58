/*
 * Huffman decoding of one baseline scan, in place of libjpeg-turbo 2.1's decode_mcu (shim.c,
 * pa_jpeg_decode_mcu).
 *
 * Why: libjpeg's entropy decoding was about 35 % of `prepare`'s CPU time (perf, 500 photos),
 * the largest single cost left, and libjpeg-turbo 2.1 takes its slow path for every MCU of a
 * file with restart markers. This decoder reads the same bits into the same coefficients with: a
 * 64-bit bit buffer filled 8 bytes at a time when they hold no 0xFF; an 11-bit lookup that gives
 * an AC code and its extra bits in one step when both fit (as stb_image's fast AC table), EOB and
 * ZRL included; and restart markers read in line instead of by a slow path. A whole decode of the
 * corpus photos at 2/8 is 1.16-1.21x libjpeg's, at 5/8 1.09-1.12x (Benchmarks/RESULTS.md).
 *
 * Exact or nothing: whatever libjpeg would warn about or treat specially is not handled here,
 * pa_huff_decode_mcu returns 0 and the caller decodes the rest with libjpeg's own decoder (shim.c
 * replays the MCUs before with it first, so its state is libjpeg's from the start). Those are a
 * code no table has, data that runs into a marker or the end, anything but fill bytes and the
 * expected RSTn at a restart boundary, and data bytes before it: libjpeg warns or reads bits
 * this decoder would have to imitate. Declined for simplicity, though libjpeg says nothing: a
 * coefficient placed past the block (libjpeg clamps it to the last), a marker other than EOI
 * after the last MCU, and FF FF 00 (libjpeg's one FF data byte). None of these occurs in a file
 * an encoder wrote whole; each costs the replay, never a different result. JPEGOwnHuffmanTests
 * decodes every JPEG the repository carries, whole and damaged, with and without this decoder
 * and compares the pixels and the warnings.
 */
#include "huffman.h"

#include "CJPEGShim.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libjpeg_fence.h"
#include <jpegint.h>

/* Codes of up to this many bits are found by one lookup (2048 entries of 2 bytes, twice for an
   AC table: 9 and 10 bits measured 1.07x, 11 bits 1.09-1.12x, 12 bits 1.07x on the corpus). */
#define PA_LOOKUP_BITS 11

typedef struct pa_huff_table {
    /* By the next PA_LOOKUP_BITS bits: (code length << 8) | symbol, or 0 for a longer code. */
    uint16_t lookup[1 << PA_LOOKUP_BITS];
    /* AC tables: by the same bits, a code whose extra bits also fit and whose value is within
       -128...127, decoded whole: value << 8 | run << 4 | code and extra bits' length; EOB and
       ZRL as value 0 (no coefficient is 0), their run and length; else 0. */
    int16_t ac_lookup[1 << PA_LOOKUP_BITS];
    /* Canonical decoding of the longer codes: the largest code of each length (-1: none), and
       what to add to a code of that length for its index in `values`. */
    int32_t maxcode[17];
    int32_t valoffset[17];
    /* The table's symbols (DHT's values, `symbols` of them; the rest of the array is unused). */
    uint8_t values[256];
    int symbols;
} pa_huff_table;

/* The bit reader: `bits` valid bits at the top of `buffer` (zero below), of which the last
   `fill` are zeros appended once no data byte was left (`at_marker`: `next` is at a marker's
   0xFF, or the end). pa_huff_decode_mcu works on a local copy, so it stays in registers: in the
   struct, every store of a coefficient made the compiler write it back to memory. */
typedef struct pa_huff_reader {
    const JOCTET *next;
    uint64_t buffer;
    int bits;
    int fill;
    int at_marker;
} pa_huff_reader;

struct pa_huff {
    pa_huff_table dc[NUM_HUFF_TBLS], ac[NUM_HUFF_TBLS];
    /* Per block of the MCU, as libjpeg's start_pass_huff_decoder sets them. */
    const pa_huff_table *dc_of[D_MAX_BLOCKS_IN_MCU], *ac_of[D_MAX_BLOCKS_IN_MCU];
    int component_of[D_MAX_BLOCKS_IN_MCU];
    int dc_needed[D_MAX_BLOCKS_IN_MCU], ac_needed[D_MAX_BLOCKS_IN_MCU];
    int blocks;
    /* Unsigned so a damaged file's runaway sum wraps, as libjpeg's int does in practice. */
    unsigned last_dc[MAX_COMPS_IN_SCAN];

    pa_huff_reader reader;
    const JOCTET *end;

    unsigned restart_interval, restarts_to_go;
    int next_restart;
    unsigned long mcus_done, mcus_total;
};

/* Zigzag order to natural order. */
static const uint8_t pa_natural_order[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

static int pa_extend(int value, int size) { return value < (1 << (size - 1)) ? value - (1 << size) + 1 : value; }

/* The canonical code of a DHT table (libjpeg has already refused a table it cannot use, at
   jpeg_start_decompress); 0 for one this cannot either. */
static int pa_huff_build(pa_huff_table *t, const JHUFF_TBL *table, int ac) {
    if (table == NULL) return 0;
    memset(t, 0, sizeof *t);
    memcpy(t->values, table->huffval, sizeof t->values);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        int count = table->bits[length];
        if (index + count > 256 || code + count > (1 << length)) return 0;
        t->maxcode[length] = count > 0 ? code + count - 1 : -1;
        t->valoffset[length] = index - code;
        for (int i = 0; i < count; i++, code++, index++) {
            if (length > PA_LOOKUP_BITS) continue;
            int shift = PA_LOOKUP_BITS - length, first = code << shift;
            for (int j = 0; j < (1 << shift); j++) t->lookup[first + j] = (uint16_t)((length << 8) | t->values[index]);
        }
        code <<= 1;
    }
    t->symbols = index;
    if (!ac) return 1;
    for (int i = 0; i < (1 << PA_LOOKUP_BITS); i++) {
        int entry = t->lookup[i];
        if (entry == 0) continue;
        int length = entry >> 8, run = (entry >> 4) & 15, size = entry & 15;
        if (size == 0 && (run == 0 || run == 15)) {
            /* EOB and ZRL: value 0 (no coefficient has it), the run, the code's length. */
            t->ac_lookup[i] = (int16_t)(run * 16 + length);
            continue;
        }
        if (size == 0 || length + size > PA_LOOKUP_BITS) continue;
        int value = pa_extend((i >> (PA_LOOKUP_BITS - length - size)) & ((1 << size) - 1), size);
        if (value < -128 || value > 127) continue;
        t->ac_lookup[i] = (int16_t)(value * 256 + run * 16 + length + size);
    }
    return 1;
}

pa_huff *pa_huff_create(j_decompress_ptr c) {
    if (c->progressive_mode || c->arith_code || c->data_precision != 8 || c->inputctl == NULL ||
        c->inputctl->has_multiple_scans || c->comps_in_scan != c->num_components || c->comps_in_scan > MAX_COMPS_IN_SCAN ||
        c->Ss != 0 || c->Se != DCTSIZE2 - 1 || c->Ah != 0 || c->Al != 0 || c->blocks_in_MCU < 1 ||
        c->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU || c->input_iMCU_row != 0 || c->unread_marker != 0 || c->src == NULL ||
        c->marker == NULL)
        return NULL;
    pa_huff *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    int built_dc[NUM_HUFF_TBLS] = {0}, built_ac[NUM_HUFF_TBLS] = {0};
    for (int ci = 0; ci < c->comps_in_scan; ci++) {
        const jpeg_component_info *comp = c->cur_comp_info[ci];
        int d = comp->dc_tbl_no, a = comp->ac_tbl_no;
        if (d < 0 || d >= NUM_HUFF_TBLS || a < 0 || a >= NUM_HUFF_TBLS) goto refuse;
        if (!built_dc[d] && !(built_dc[d] = pa_huff_build(&h->dc[d], c->dc_huff_tbl_ptrs[d], 0))) goto refuse;
        if (!built_ac[a] && !(built_ac[a] = pa_huff_build(&h->ac[a], c->ac_huff_tbl_ptrs[a], 1))) goto refuse;
    }
    h->blocks = c->blocks_in_MCU;
    for (int b = 0; b < h->blocks; b++) {
        int ci = c->MCU_membership[b];
        const jpeg_component_info *comp = c->cur_comp_info[ci];
        h->component_of[b] = ci;
        h->dc_of[b] = &h->dc[comp->dc_tbl_no];
        h->ac_of[b] = &h->ac[comp->ac_tbl_no];
        h->dc_needed[b] = comp->component_needed ? 1 : 0;
        h->ac_needed[b] = comp->component_needed && comp->DCT_scaled_size > 1;
    }
    h->reader.next = c->src->next_input_byte;
    h->end = h->reader.next + c->src->bytes_in_buffer;
    h->restart_interval = h->restarts_to_go = c->restart_interval;
    h->next_restart = c->marker->next_restart_num;
    h->mcus_total = (unsigned long)c->MCUs_per_row * c->MCU_rows_in_scan;
    return h;
refuse:
    free(h);
    return NULL;
}

void pa_huff_destroy(pa_huff *h) { free(h); }

size_t pa_huff_memory(void) { return sizeof(struct pa_huff); }

unsigned long pa_huff_mcus_done(const pa_huff *h) { return h->mcus_done; }

/* At least 57 valid bits: 8 bytes at once while none is 0xFF, else a byte at a time, with
   FF 00 read as an FF data byte and zeros appended from the first marker (or the end) on. */
static inline void pa_huff_fill(pa_huff_reader *r, const JOCTET *end) {
    if (r->bits > 56) return;
    if (!r->at_marker && end - r->next >= 8) {
        uint64_t word;
        memcpy(&word, r->next, 8);
        word = __builtin_bswap64(word);
        uint64_t inverted = ~word;
        if (((inverted - 0x0101010101010101ULL) & ~inverted & 0x8080808080808080ULL) == 0) {
            int bytes = (64 - r->bits) >> 3;
            r->buffer |= (word >> r->bits) & ~((UINT64_C(1) << ((64 - r->bits) & 7)) - 1);
            r->bits += 8 * bytes;
            r->next += bytes;
            return;
        }
    }
    while (r->bits <= 56) {
        unsigned byte = 0;
        if (!r->at_marker && r->next < end) {
            byte = *r->next;
            if (byte != 0xFF) {
                r->next++;
            } else if (r->next + 1 < end && r->next[1] == 0) {
                r->next += 2;
            } else {
                r->at_marker = 1;
                byte = 0;
            }
        } else {
            r->at_marker = 1;
        }
        if (r->at_marker) r->fill += 8;
        r->buffer |= (uint64_t)byte << (56 - r->bits);
        r->bits += 8;
    }
}

static inline void pa_huff_drop(pa_huff_reader *r, int count) {
    r->buffer <<= count;
    r->bits -= count;
}

/* The symbol of a `length`-bit `code` up to the largest code of that length in the table, by its
   index among the table's symbols; -1 when that index is not one of them. A table pa_huff_build
   accepted (canonical, at most 256 symbols) always gives one; the check stands where libjpeg-turbo
   masks the index with 0xFF, which would read some other symbol of a damaged table instead of
   handing the file to libjpeg. */
static inline int pa_huff_canonical(const pa_huff_table *t, int32_t code, int length) {
    int32_t index = code + t->valoffset[length];
    if (index < 0 || index >= t->symbols) return -1;
    return t->values[index];
}

int pa_huff_canonical_symbol_for_test(const unsigned char bits[17], const unsigned char *values, int code, int length,
                                      int skew) {
    if (length < 1 || length > 16) return -1;
    JHUFF_TBL table;
    memset(&table, 0, sizeof table);
    int total = 0;
    for (int i = 1; i <= 16; i++) total += table.bits[i] = bits[i];
    if (total > 256) return -1;
    memcpy(table.huffval, values, (size_t)total);
    pa_huff_table *t = calloc(1, sizeof *t);
    if (t == NULL || !pa_huff_build(t, &table, 0)) {
        free(t);
        return -1;
    }
    t->valoffset[length] += skew;
    int symbol = code <= t->maxcode[length] ? pa_huff_canonical(t, code, length) : -1;
    free(t);
    return symbol;
}

/* The next symbol of `t` (at least 16 valid bits), or -1 for a code it does not have. */
static inline int pa_huff_symbol(pa_huff_reader *r, const pa_huff_table *t) {
    unsigned entry = t->lookup[r->buffer >> (64 - PA_LOOKUP_BITS)];
    if (entry != 0) {
        pa_huff_drop(r, (int)(entry >> 8));
        return (int)(entry & 0xFF);
    }
    for (int length = PA_LOOKUP_BITS + 1; length <= 16; length++) {
        int32_t code = (int32_t)(r->buffer >> (64 - length));
        if (code <= t->maxcode[length]) {
            pa_huff_drop(r, length);
            return pa_huff_canonical(t, code, length);
        }
    }
    return -1;
}

/* `size` (1-15) extra bits as a signed value (at least `size` valid bits). */
static inline int pa_huff_value(pa_huff_reader *r, int size) {
    int bits = (int)(r->buffer >> (64 - size));
    pa_huff_drop(r, size);
    return pa_extend(bits, size);
}

/* Where the marker after the data is: only padding bits left in the buffer, then fill bytes
   and a marker. NULL otherwise (junk before it, the end, or data bits not yet used). */
static const JOCTET *pa_huff_marker(const pa_huff *h) {
    int real = h->reader.bits - h->reader.fill;
    if (real < 0 || real >= 8) return NULL;
    const JOCTET *p = h->reader.next;
    if (p >= h->end || *p != 0xFF) return NULL;
    while (p + 1 < h->end && p[1] == 0xFF) p++;
    return p + 1 < h->end ? p : NULL;
}

static int pa_huff_restart(pa_huff *h, j_decompress_ptr cinfo) {
    const JOCTET *p = pa_huff_marker(h);
    if (p == NULL || p[1] != JPEG_RST0 + h->next_restart) return 0;
    memset(&h->reader, 0, sizeof h->reader);
    h->reader.next = p + 2;
    memset(h->last_dc, 0, sizeof h->last_dc);
    h->restarts_to_go = h->restart_interval;
    h->next_restart = (h->next_restart + 1) & 7;
    cinfo->marker->next_restart_num = h->next_restart;
    return 1;
}

/* One block: 0 at a bad code or a coefficient past the block. */
static inline int pa_huff_block(pa_huff *h, pa_huff_reader *r, int b, JCOEF *block) {
    const JOCTET *end = h->end;
    pa_huff_fill(r, end);
    int size = pa_huff_symbol(r, h->dc_of[b]);
    if (size < 0 || size > 15) return 0;
    int diff = size ? pa_huff_value(r, size) : 0;
    if (h->dc_needed[b]) {
        unsigned *last = &h->last_dc[h->component_of[b]];
        *last += (unsigned)diff;
        if (block) block[0] = (JCOEF)(int)*last;
    }
    const pa_huff_table *t = h->ac_of[b];
    JCOEF *store = h->ac_needed[b] ? block : NULL;
    for (int k = 1; k < DCTSIZE2;) {
        if (r->bits < 32) pa_huff_fill(r, end);
        int fast = t->ac_lookup[r->buffer >> (64 - PA_LOOKUP_BITS)];
        if (fast != 0) {
            pa_huff_drop(r, fast & 15);
            if ((fast >> 8) == 0) {
                if ((fast & 0xF0) == 0) break; /* EOB */
                k += 16;                       /* ZRL */
                continue;
            }
            k += (fast >> 4) & 15;
            if (k > DCTSIZE2 - 1) return 0;
            if (store) store[pa_natural_order[k]] = (JCOEF)(fast >> 8);
            k++;
            continue;
        }
        int symbol = pa_huff_symbol(r, t);
        if (symbol < 0) return 0;
        int run = symbol >> 4, bits = symbol & 15;
        if (bits) {
            k += run;
            if (k > DCTSIZE2 - 1) return 0;
            int value = pa_huff_value(r, bits);
            if (store) store[pa_natural_order[k]] = (JCOEF)value;
            k++;
        } else if (run == 15) {
            k += 16;
        } else {
            break;
        }
    }
    return 1;
}

int pa_huff_decode_mcu(pa_huff *h, j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    if (h->restart_interval && h->restarts_to_go == 0 && !pa_huff_restart(h, cinfo)) return 0;
    pa_huff_reader r = h->reader;
    for (int b = 0; b < h->blocks; b++) {
        if (!pa_huff_block(h, &r, b, MCU_data ? MCU_data[b][0] : NULL)) return 0;
    }
    h->reader = r;
    /* Bits of the zero fill used: libjpeg warns of a premature end. */
    if (r.bits < r.fill) return 0;
    if (h->mcus_done + 1 == h->mcus_total) {
        const JOCTET *p = pa_huff_marker(h);
        if (p == NULL || p[1] != JPEG_EOI) return 0;
        /* As libjpeg leaves it when its bit reader stopped short of the marker: next_marker
           reads the EOI from here (fill bytes before it are no warning). */
        cinfo->src->next_input_byte = p;
        cinfo->src->bytes_in_buffer = (size_t)(h->end - p);
        cinfo->unread_marker = 0;
    }
    if (h->restart_interval) h->restarts_to_go--;
    h->mcus_done++;
    return 1;
}
