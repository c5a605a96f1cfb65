/* A select between two constants on a symbolic condition (clang -O0 emits
 * `select i1 %c, i32 2, i32 1` for `n > 2 ? 2 : 1`): the choice must have the
 * width of the constants, here 32 bits, to be multiplied by an int. Two paths:
 * n > 2 prints 4, otherwise 2. */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
    int n, y = 0;
    int d[2] = {1, 2};
    klee_make_symbolic(&n, sizeof n, "n");
    y += d[1] * (n > 2 ? 2 : 1);
    printf("%d\n", y);
    return y;
}
