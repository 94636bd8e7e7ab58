#!/usr/bin/env python3
"""Progressive JPEGs on the edges of what libjpeg-turbo takes, for ValidationByDCTests: each one
libjpeg refuses or warns about where a reader that only tracks which coefficients are nonzero could
miss it. Made from dc/progressive.jpg (cjpeg's scan script) and, for the coefficient that wraps, a
hand-built 16x8 file. Run once by hand from this folder; the outputs in dc/progressive-edge/ are
committed.

- sos-out-of-order.jpg: Cb and Cr swapped in the second interleaved DC scan (libjpeg's get_sos:
  "Invalid component ID").
- no-dqt.jpg, chroma-dqt-late.jpg: no quantisation tables, or the chroma's defined only after the
  first scan (libjpeg: "Quantization table 0x01 was not defined").
- coefficient-wraps.jpg: an AC coefficient 16384 at Al 2, which libjpeg's 16-bit JCOEF holds as 0,
  so its refinements read no correction bit for it (libjpeg: "bad Huffman code");
  coefficient-control.jpg: 8192, which does not wrap (whole).
"""
import os, struct

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "dc", "progressive-edge"))
def segs(b):
    i=2; out=[]
    while True:
        assert b[i]==0xFF
        while b[i]==0xFF: i+=1
        m=b[i]; i+=1
        if m==0xD9: out.append((m,i,i,None)); return out
        L=b[i]<<8|b[i+1]
        out.append((m,i-2,i+L,b[i+2:i+L]))
        i+=L
        if m==0xDA:
            # scan data until marker
            j=i
            while True:
                if b[j]==0xFF and b[j+1]!=0 and not (0xD0<=b[j+1]<=0xD7): break
                j+=1
            out.append(('data',i,j,b[i:j]))
            i=j

src=open('../progressive.jpg','rb').read()
S=segs(src)

def seg(m, payload): return bytes([0xFF,m])+struct.pack('>H',len(payload)+2)+payload
def rebuild(S, src, edit):
    out=bytearray(src[:2])
    for s in S:
        r=edit(s)
        if r is None: continue
        if s[0]==0xD9: out+=b'\xff\xd9'; continue
        out+=r
    return bytes(out)
def ident(s):
    if s[0]=='data': return s[3]
    if s[0]==0xD9: return b''
    return src[s[1]:s[2]]

# A: out-of-order components in the first (interleaved DC) scan
first=[True]
def editA(s):
    if s[0]==0xDA and first[0]:
        first[0]=False
        p=bytearray(s[3]); assert p[0]==3
        p[3:5],p[5:7]=p[5:7],p[3:5]
        return seg(0xDA,bytes(p))
    return ident(s)
# B: no DQT at all
open('no-dqt.jpg','wb').write(rebuild(S,src,lambda s: None if s[0]==0xDB else ident(s)))
# B2: chroma DQT moved after the first scan
dqt1=[s for s in S if s[0]==0xDB][1]
cnt=[0]
def editB2(s):
    if s is dqt1: return None
    if s[0]=='data':
        cnt[0]+=1
        if cnt[0]==1: return s[3]+src[dqt1[1]:dqt1[2]]
    return ident(s)
open('chroma-dqt-late.jpg','wb').write(rebuild(S,src,editB2))
# control

# C: JCOEF truncation. 16x8 4:4:4, 3 comps.
class BW:
    def __init__(s): s.bits=[]
    def put(s,code,n):
        for i in range(n-1,-1,-1): s.bits.append((code>>i)&1)
    def bytes(s):
        b=s.bits+[1]*((-len(s.bits))%8)
        out=bytearray()
        for i in range(0,len(b),8):
            v=0
            for x in b[i:i+8]: v=v<<1|x
            out.append(v)
            if v==0xFF: out.append(0)
        return bytes(out)
def dht(cls_slot, counts, syms):
    c=[0]*16
    for l,n in counts.items(): c[l-1]=n
    return seg(0xC4, bytes([cls_slot])+bytes(c)+bytes(syms))
def sos(comps, ss, se, ah, al):
    return seg(0xDA, bytes([len(comps)])+b''.join(bytes([cid,tbl]) for cid,tbl in comps)+bytes([ss,se,ah<<4|al]))
def build(Al, value, size, refine_bits_y):
    out=bytearray(b'\xff\xd8')
    out+=seg(0xDB, bytes([0])+bytes([1]*64))
    out+=seg(0xC2, bytes([8])+struct.pack('>HH',8,16)+bytes([3, 1,0x11,0, 2,0x11,0, 3,0x11,0]))
    out+=dht(0x00,{1:1},[0])              # DC: '0' -> size 0
    out+=dht(0x10,{1:1,2:1},[0x00,size])  # AC: '0' EOB0, '10' (run0,size)
    # DC first, all final
    out+=sos([(1,0x00),(2,0x00),(3,0x00)],0,0,0,0); w=BW(); w.put(0,6); out+=w.bytes()
    for cid in (2,3):
        out+=sos([(cid,0x00)],1,63,0,0); w=BW(); w.put(0,1); w.put(0,1); out+=w.bytes()
    # Y AC first at Al
    out+=sos([(1,0x00)],1,63,0,Al); w=BW(); w.put(0b10,2); w.put(value,size); w.put(0,1); w.put(0,1); out+=w.bytes()
    ah=Al
    for bits in refine_bits_y:
        out+=sos([(1,0x00)],1,63,ah,ah-1); w=BW()
        for code,n in bits: w.put(code,n)
        out+=w.bytes(); ah-=1
    out+=b'\xff\xd9'
    return bytes(out)
# Al=2, value 16384 (size 15): 16384<<2 = 65536 -> JCOEF 0 in libjpeg
# refine Ah=2 Al=1: ours: blk0 EOB '0' + corr '1', blk1 EOB '0'; refine Ah=1 Al=0: blk0 '0'+'0', blk1 '0'
open('coefficient-wraps.jpg','wb').write(build(2,16384,15,[[(0,1),(1,1),(0,1)],[(0,1),(0,1),(0,1)]]))
# control: value 1<<13 with size 14 (8192<<2 = 32768 -> -32768 nonzero)
open('coefficient-control.jpg','wb').write(build(2,8192,14,[[(0,1),(1,1),(0,1)],[(0,1),(0,1),(0,1)]]))
cnt2=[0]
def editA2(s):
    if s[0]==0xDA and s[3][0]==3:
        cnt2[0]+=1
        if cnt2[0]==2:
            p=bytearray(s[3]); p[3:5],p[5:7]=p[5:7],p[3:5]; return seg(0xDA,bytes(p))
    return ident(s)
open('sos-out-of-order.jpg','wb').write(rebuild(S,src,editA2))
