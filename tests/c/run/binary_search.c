/* Recursive binary search for a symbolic key in 7 sorted odd numbers.
 *
 * Paths: the search tree has 7 nodes, where the key may be found (7 paths),
 * and 8 gaps below, between and above them, where it may not (every gap
 * holds some byte: 0, the even numbers, 14..255): 15.
 * expect: exit=15
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

static const int sorted[7] = {1, 3, 5, 7, 9, 11, 13};

static int find(int lo, int hi, int key) {
  if (lo > hi)
    return -1;
  int mid = (lo + hi) / 2;
  if (sorted[mid] == key)
    return mid;
  if (sorted[mid] < key)
    return find(mid + 1, hi, key);
  return find(lo, mid - 1, key);
}

int main(void) {
  unsigned char key;
  klee_make_symbolic(&key, sizeof key, "key");
  int at = find(0, 6, key);
  printf("%d\n", at);
  return at < 0;
}
