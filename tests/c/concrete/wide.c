/* Packed bit-fields make clang load and store integers wider than 128 bits
 * (csmith writes such structs, this one is csmith's); the engine runs them
 * concretely. */
#include <stdio.h>

#pragma pack(push)
#pragma pack(1)
struct S1 {
  unsigned f0 : 22;
  signed f1 : 23;
  volatile signed f2 : 18;
  signed f3 : 11;
  unsigned f4 : 21;
  volatile signed f5 : 31;
  unsigned f6 : 28;
  signed f7 : 27;
};
#pragma pack(pop)

static struct S1 g = {1470, 2712, -110, 31, 925, 5514, 5584, 10891};

int main(void) {
  struct S1 l = g;
  l.f1 ^= 0x2aaaaa;
  l.f2 = l.f2 * 3 + 1;
  l.f3 += 1000;
  l.f5 = -l.f5 << 2;
  l.f7 = l.f7 / -3;
  g.f0 = (unsigned)(l.f1 >> 3);
  g.f6 = g.f6 * 7;
  printf("%u %d %d %d %u %d %u %d\n", l.f0, l.f1, l.f2, l.f3, l.f4, l.f5, l.f6, l.f7);
  printf("%u %u %zu\n", g.f0, g.f6, sizeof g);
  return 0;
}
