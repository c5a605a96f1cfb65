/* A fuzzer's input leads the engine to a rare record (tag 48611), behind
 * 2^24 paths that depth-first search explores first; one value in 2^32 of
 * the record's prints "bingo". Seeded with that record and, newer, one of
 * the common kind, the engine must still solve the branch the record's path
 * leaves (tests/exec_symbolic.rs, the_branch_off_a_fuzzers_input_runs_first). */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
    unsigned char flags[24];
    int tag, value;
    klee_make_symbolic(&tag, sizeof tag, "tag");
    klee_make_symbolic(flags, sizeof flags, "flags");
    klee_make_symbolic(&value, sizeof value, "value");
    if (tag == 48611) {
        if ((unsigned)value * 2654435761u == 0xdeadbeefu)
            printf("bingo\n");
        return 0;
    }
    int set = 0;
    for (int i = 0; i < 24; i++)
        if (flags[i] & 1)
            set++;
    printf("%d flags\n", set);
    return 0;
}
