/* LLVM intrinsics clang emits for builtins: saturation, min/max, abs,
 * rotates (funnel shifts), bit reversal, reductions and float rounding. */
#include <stdio.h>
#include <stdlib.h>

typedef int v4i __attribute__((ext_vector_type(4)));

int main(void) {
  volatile int a = 2000000000, b = 1000000000, c = -7;
  volatile unsigned u = 0x80000001u, v = 5;
  volatile signed char sa = 100, sb = 100;
  printf("sat %d %d %u %u %d\n", __builtin_elementwise_add_sat(a, b), __builtin_elementwise_sub_sat(-a, b),
         __builtin_elementwise_add_sat(u, u), __builtin_elementwise_sub_sat(v, u),
         (int)__builtin_elementwise_add_sat(sa, sb));
  printf("minmax %d %d %u %u %d %ld\n", __builtin_elementwise_min(a, c), __builtin_elementwise_max(a, c),
         __builtin_elementwise_min(u, v), __builtin_elementwise_max(u, v), abs(c), labs((long)c * 3));
  printf("rot %x %x %llx %x\n", __builtin_rotateleft32(u, 4), __builtin_rotateright32(u, 4),
         (unsigned long long)__builtin_rotateleft64(0x0123456789abcdefULL, v), __builtin_bitreverse32(u));
  v4i x = {1, -2, 3, c};
  printf("reduce %d %d %d %d\n", __builtin_reduce_add(x), __builtin_reduce_max(x), __builtin_reduce_min(x),
         __builtin_reduce_xor(x));
  volatile double d = -2.5, e = 3.7;
  volatile float f = 1.25f;
  printf("fp %.1f %.1f %.1f %.1f %.1f %.3f %.4f %g %g\n", __builtin_floor(d), __builtin_ceil(d), __builtin_trunc(e),
         __builtin_round(d), __builtin_rint(d), __builtin_sqrt(e), (double)__builtin_fmaf(f, f, f),
         __builtin_fmin(d, e), __builtin_copysign(e, d));
  printf("ovf %d %d\n", __builtin_mul_overflow(a, 3, &c), c);
  return 0;
}
