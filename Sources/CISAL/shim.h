#include <isa-l/igzip_lib.h>

/* ISA-L's level buffer for level 1 (ISAL_DEF_LVL1_DEFAULT, a macro Swift cannot import). */
static const unsigned pa_isal_level1_buffer_bytes = ISAL_DEF_LVL1_DEFAULT;
