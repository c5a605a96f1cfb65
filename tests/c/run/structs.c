/* Structs passed and returned by value, nested, and read through pointers.
 *
 * Paths: contains() is a chain of four && tests; each failing one is an
 * "outside" path (4). Inside, p.x == 5 fails (1 path), or holds and then
 * p.y == 10 holds (center) or fails (inside): 4 + 1 + 2 = 7.
 * expect: exit=7
 */
#include <klee/klee.h>
#include <stdio.h>

struct point {
  int x, y;
};
struct rect {
  struct point lo, hi;
};

static struct point mid(struct rect r) {
  struct point p = {(r.lo.x + r.hi.x) / 2, (r.lo.y + r.hi.y) / 2};
  return p;
}

static int contains(const struct rect *r, struct point p) {
  return p.x >= r->lo.x && p.x <= r->hi.x && p.y >= r->lo.y && p.y <= r->hi.y;
}

int main(void) {
  struct point p;
  klee_make_symbolic(&p, sizeof p, "p");
  struct rect r = {{0, 0}, {10, 20}};
  struct point m = mid(r);
  if (contains(&r, p)) {
    if (p.x == m.x && p.y == m.y)
      puts("center");
    else
      puts("inside");
  } else {
    puts("outside");
  }
  return 0;
}
