/* Exercises most LLVM constructs clang emits at -O0 and -O2; prints a trace
 * whose every line the engine must reproduce exactly. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct __attribute__((packed)) Packed {
  char c;
  int i;
  short s;
  long long l;
};

struct Node {
  int value;
  struct Node *next;
};

/* Same field offsets, different sizes: distinct types. */
struct __attribute__((packed)) P12 {
  long long a;
  int b;
};
struct U16 {
  long long a;
  int b;
};
static struct P12 p12[3] = {{1, 2}, {3, 4}, {5, 6}};
static struct U16 u16[3] = {{7, 8}, {9, 10}, {11, 12}};

union Pun {
  float f;
  uint32_t u;
  unsigned char b[4];
};

typedef int (*binop)(int, int);
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static binop table[] = {add, sub, mul};

static const char *names[] = {"zero", "one", "two", "three"};
static int counter = 7;
static int *counter_ptr = &counter;
static struct Node n2 = {2, 0};
static struct Node n1 = {1, &n2};

typedef int v4si __attribute__((vector_size(16)));

static long sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long total = 0;
  for (int i = 0; i < n; i++) total += va_arg(ap, int);
  va_end(ap);
  return total;
}

static double sum_mixed(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double total = 0;
  for (int i = 0; i < n; i++) {
    if (i % 2 == 0)
      total += va_arg(ap, double);
    else
      total += (double)va_arg(ap, long long);
  }
  va_end(ap);
  return total;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int classify(int x) {
  switch (x) {
  case 0: return 10;
  case 1: return 11;
  case 5: return 15;
  case 100: return 99;
  case -3: return -30;
  default: return -1;
  }
}

struct Big {
  int a[10];
  double d;
};

static struct Big make_big(int seed) {
  struct Big b;
  for (int i = 0; i < 10; i++) b.a[i] = seed * i;
  b.d = seed / 4.0;
  return b;
}

static int sum_big(struct Big b) {
  int s = 0;
  for (int i = 0; i < 10; i++) s += b.a[i];
  b.a[0] = 1000; /* must not change the caller's copy */
  return s;
}

int main(void) {
  /* Integer widths and operations. */
  volatile unsigned char uc = 200;
  volatile signed char sc = -100;
  volatile unsigned short us = 65000;
  volatile int i = -123456;
  volatile unsigned u = 4000000000u;
  volatile long long ll = -9000000000000LL;
  volatile unsigned long long ull = 18000000000000000000ULL;
  printf("%d %d %d %d %u %lld %llu\n", uc + 100, sc * 3, us + us, i / 7, u % 1000, ll >> 3, ull / 3);
  printf("%d %d %u %lld\n", i % 7, -i % 7, u >> 5, (long long)(ull << 3));
  printf("%x %X %o %#x %08x %-6d| %+d %5.3d\n", 255u, 0xbeefu, 8u, 255u, 0x1234u, 42, 42, 7);
  __int128 big = (__int128)ll * ll;
  printf("%llu %llu\n", (unsigned long long)(big >> 64), (unsigned long long)big);
  unsigned _BitInt(17) b17 = 100000;
  b17 = b17 * 3;
  printf("%u\n", (unsigned)b17);
  _BitInt(37) s37 = -5;
  s37 = s37 * 1000000000;
  printf("%lld\n", (long long)s37);

  /* Overflow builtins and bit tricks. */
  int r;
  int ov = __builtin_sadd_overflow(i, 2147483647, &r);
  printf("%d %d\n", ov, r);
  unsigned ur;
  ov = __builtin_umul_overflow(u, 3u, &ur);
  printf("%d %u\n", ov, ur);
  printf("%d %d %d %x %llx\n", __builtin_popcount(u), __builtin_clz(u), __builtin_ctz(u + 8),
         __builtin_bswap32(0x11223344u), (unsigned long long)__builtin_bswap64(0x0102030405060708ULL));

  /* Control flow. */
  for (int k = -4; k < 7; k++) printf("%d ", classify(k == 6 ? 100 : k));
  printf("\nfib %d\n", fib(15));
  printf("fp %d %d %d\n", table[0](3, 4), table[1](3, 4), table[2](3, 4));

  /* Memory: globals, pointers, structs, heap. */
  *counter_ptr += 5;
  printf("counter %d %s %s\n", counter, names[2], names[counter % 4]);
  int sum = 0;
  for (struct Node *n = &n1; n; n = n->next) sum += n->value;
  printf("list %d\n", sum);
  volatile int two = 2;
  printf("pk %d %d %lld %zu %zu\n", p12[two].b, u16[two].b, p12[two - 1].a, sizeof p12, sizeof u16);
  struct Packed p;
  memset(&p, 0, sizeof p);
  p.c = 'x';
  p.i = 0x01020304;
  p.s = -2;
  p.l = 0x1122334455667788LL;
  unsigned char raw[sizeof p];
  memcpy(raw, &p, sizeof p);
  for (unsigned k = 0; k < sizeof p; k++) printf("%02x", raw[k]);
  printf(" size %zu\n", sizeof p);
  int *heap = malloc(10 * sizeof *heap);
  for (int k = 0; k < 10; k++) heap[k] = k * k;
  memmove(heap + 1, heap, 5 * sizeof *heap);
  heap = realloc(heap, 20 * sizeof *heap);
  for (int k = 10; k < 20; k++) heap[k] = -k;
  int *zeros = calloc(4, sizeof(int));
  long hs = 0;
  for (int k = 0; k < 20; k++) hs = hs * 3 + heap[k];
  printf("heap %ld %d\n", hs, zeros[0] + zeros[3]);
  free(heap);
  free(zeros);

  /* Unions, floats. */
  union Pun pun;
  pun.f = -1.5f;
  printf("pun %08x %d\n", pun.u, pun.b[3]);
  volatile double d = 1.0 / 3.0;
  volatile float f = 2.5f;
  printf("float %d %d %lld %d\n", (int)(d * 1000000), (int)(f * f), (long long)(d * 1e15), d < f);
  /* (int) of a double beyond int's range is undefined: clang's code gives 0x80000000, or the
     integer itself where instruction selection folds an int-to-float-to-int pair. */
  printf("conv %u %d %lld\n", (unsigned)(f * 1000.0f), (int)-f, (long long)(double)(unsigned)u);

  /* Varargs, struct by value. */
  printf("va %ld %d\n", sum_ints(5, 1, 2, 3, 4, 5), (int)sum_mixed(4, 1.5, 2LL, 3.25, 4LL));
  printf("va8 %ld\n", sum_ints(9, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  struct Big bb = make_big(3);
  printf("big %d %d %d\n", sum_big(bb), bb.a[0], (int)(bb.d * 4));

  /* Vectors. */
  v4si va = {1, 2, 3, 4}, vb = {10, 20, 30, 40};
  v4si vc = va * vb + va;
  printf("vec %d %d %d %d\n", vc[0], vc[1], vc[2], vc[3]);

  /* Strings and characters. */
  char buf[32];
  const char *msg = "hello";
  for (int k = 0; k <= 5; k++) buf[k] = msg[k];
  puts(buf);
  volatile int len = 0;
  while (buf[len]) len++;
  putchar('A' + len);
  putchar('\n');
  printf("%s|%10s|%-10s|%.3s|%c\n", msg, msg, msg, msg, msg[1]);
  printf("%5.2s|%%|%p\n", "abc", (void *)0);
  return counter - 10;
}
