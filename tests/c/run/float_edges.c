/* Concrete floating point is bit-exact with the x86-64 binary on the edge
 * values: signed zeros, subnormals, infinities, quiet and signalling NaNs,
 * the limits of every integer conversion (out-of-range conversions give
 * what cvttss2si/cvttsd2si and clang's unsigned sequences give), rounding
 * ties, and `a * b - 1`, which clang contracts into llvm.fmuladd (on x86-64
 * a multiply and a subtraction, each rounded: 0.1 * 10 - 1 is 0, not 2^-54).
 * The single test replays natively and its stdout must be the same bits.
 *
 * Paths: no input: 1.
 * expect: exit=1
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned fbits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static unsigned long long dbits(double d) { unsigned long long u; memcpy(&u, &d, 8); return u; }
static float fval(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static double dval(unsigned long long u) { double d; memcpy(&d, &u, 8); return d; }

/* volatile: the values reach the engine at run time, not as folded constants. */
static volatile unsigned fs[] = {
    0, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
    0x7fa00001u /* signalling */, 0x00000001u, 0x80000001u, 0x007fffffu, 0x7f7fffffu, 0x4f000000u /* 2^31 */,
    0xcf000000u, 0x4f800000u /* 2^32 */, 0x5f000000u /* 2^63 */, 0x5f800000u /* 2^64 */, 0xdf000000u,
    0x3f000000u /* 0.5 */, 0x3fc00000u /* 1.5 */, 0x40200000u /* 2.5 */, 0xbfc00000u, 0x3dcccccdu /* 0.1 */,
    0x4effffffu, 0x5effffffu, 0x477fff00u, 0x47000000u, 0xc7000000u, 0x4b000001u, 0x42c80000u, 0xcf000001u,
    0x41200000u /* 10 */};
static volatile unsigned long long ds[] = {
    0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff4000000000001ull /* signalling */,
    1, 0x8000000000000001ull, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0x41e0000000000000ull /* 2^31 */,
    0xc1e0000000000000ull, 0x41dfffffffc00000ull /* 2^31-1 */, 0xc1e0000000200000ull /* -2^31-1 */,
    0x41efffffffe00000ull /* 2^32-1 */, 0x41f0000000000000ull, 0x43e0000000000000ull /* 2^63 */,
    0x43f0000000000000ull /* 2^64 */, 0xc3e0000000000000ull, 0x43dfffffffffffffull, 0x43efffffffffffffull,
    0x3fe0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull, 0xbff8000000000000ull,
    0x3fb999999999999aull /* 0.1 */, 0x36a0000000000000ull, 0x47efffffe0000000ull /* FLT_MAX */,
    0x47effffff0000000ull /* rounds to infinity as a float */, 0x3810000000000000ull, 0x3690000000000000ull,
    0x40f0000000000000ull, 0x40dfffc000000000ull, 0xc0e0000000000000ull, 0x4059000000000000ull,
    0x400921fb54442d18ull, 0x4024000000000000ull /* 10 */};
static volatile long long is[] = {0, 1, -1, 16777217, -16777217, 9007199254740993LL, INT64_MIN, INT64_MAX,
                                  2147483647, -2147483648LL, 4294967295LL, 0x7fffffbfffffffffLL, 255, 65535,
                                  0x20000020000001LL};

#define COUNT(a) (sizeof a / sizeof a[0])

int main(void) {
  for (unsigned i = 0; i < COUNT(fs); i++) {
    float a = fval(fs[i]);
    printf("f%u: %d %d %d %lld %u %u %u %llu | %016llx | %08x %08x %08x %08x %08x %08x %08x %08x\n", i,
           (signed char)a, (short)a, (int)a, (long long)a, (unsigned char)a, (unsigned short)a, (unsigned)a,
           (unsigned long long)a, dbits((double)a), fbits(fabsf(a)), fbits(sqrtf(a)), fbits(floorf(a)),
           fbits(ceilf(a)), fbits(truncf(a)), fbits(roundf(a)), fbits(rintf(a)), fbits(-a));
    for (unsigned j = 0; j < COUNT(fs); j++) {
      float b = fval(fs[j]);
      printf(" %08x %08x %08x %08x %08x %08x %08x %08x %d%d%d%d%d%d%d\n", fbits(a + b), fbits(a - b),
             fbits(a * b), fbits(a / b), fbits(fminf(a, b)), fbits(fmaxf(a, b)), fbits(copysignf(a, b)),
             fbits(a * b - 1), a == b, a != b, a < b, a <= b, a > b, a >= b, isunordered(a, b));
    }
  }
  for (unsigned i = 0; i < COUNT(ds); i++) {
    double a = dval(ds[i]);
    printf("d%u: %d %d %d %lld %u %u %u %llu | %08x | %016llx %016llx %016llx %016llx %016llx %016llx %016llx\n",
           i, (signed char)a, (short)a, (int)a, (long long)a, (unsigned char)a, (unsigned short)a, (unsigned)a,
           (unsigned long long)a, fbits((float)a), dbits(fabs(a)), dbits(sqrt(a)), dbits(floor(a)),
           dbits(ceil(a)), dbits(trunc(a)), dbits(round(a)), dbits(rint(a)));
    for (unsigned j = 0; j < COUNT(ds); j++) {
      double b = dval(ds[j]);
      printf(" %016llx %016llx %016llx %016llx %016llx %016llx %016llx %016llx %d%d%d%d%d%d%d\n", dbits(a + b),
             dbits(a - b), dbits(a * b), dbits(a / b), dbits(fmin(a, b)), dbits(fmax(a, b)),
             dbits(copysign(a, b)), dbits(a * b - 1), a == b, a != b, a < b, a <= b, a > b, a >= b,
             isunordered(a, b));
    }
  }
  for (unsigned i = 0; i < COUNT(is); i++) {
    long long v = is[i];
    printf("i%u: %08x %08x %08x %08x %08x %016llx %016llx %016llx %016llx %016llx\n", i, fbits((float)v),
           fbits((float)(unsigned long long)v), fbits((float)(int)v), fbits((float)(unsigned)v),
           fbits((float)(short)v), dbits((double)v), dbits((double)(unsigned long long)v), dbits((double)(int)v),
           dbits((double)(unsigned)v), dbits((double)(unsigned char)v));
  }
  /* Out of range, converted back from a float type that holds the integer:
   * clang folds the round trip into the integer's low bits; through a
   * variable, cvttsd2si's INT_MIN. */
  volatile unsigned big = 4000000000u;
  volatile long long huge = 5000000000LL;
  double through = big;
  printf("round trips: %d %d %d %d %d\n", (int)(double)big, (int)(double)huge, (unsigned char)(double)huge,
         (int)through, (int)(float)big);
  return 0;
}
