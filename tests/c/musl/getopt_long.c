/* Functions the libc model lacks, served by musl 1.2.3 beneath it
 * (src/libs.rs): getopt_long, strsep, memmem, strcasestr, qsort_r, lfind,
 * isatty and write (musl's, over the model's system-call layer).
 * argv: -- -v --name=Bob extra --count 3 word -v
 * expect: exit=1
 * Every input is concrete: one path, whose output the native build (glibc)
 * must print alike.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_length(const void *a, const void *b, void *dir) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  int d = (int)strlen(x) - (int)strlen(y);
  return *(int *)dir * (d ? d : strcmp(x, y));
}

static int same(const void *a, const void *b) { return *(const int *)a != *(const int *)b; }

int main(int argc, char **argv) {
  static const struct option options[] = {
      {"verbose", no_argument, 0, 'v'},
      {"name", required_argument, 0, 'n'},
      {"count", required_argument, 0, 'c'},
      {0, 0, 0, 0},
  };
  int verbose = 0, count = 1, c, down = -1;
  const char *name = "nobody";
  opterr = 0;
  while ((c = getopt_long(argc, argv, "vn:c:", options, 0)) != -1) {
    if (c == 'v')
      verbose++;
    else if (c == 'n')
      name = optarg;
    else if (c == 'c')
      count = atoi(optarg);
    else
      printf("unknown option\n");
  }
  printf("verbose=%d name=%s count=%d operands=%d\n", verbose, name, count, argc - optind);
  qsort_r(argv + optind, (size_t)(argc - optind), sizeof *argv, by_length, &down);
  for (int i = optind; i < argc; i++)
    printf("operand %s\n", argv[i]);

  char text[] = "alpha,beta;;gamma";
  char *rest = text, *token;
  while ((token = strsep(&rest, ",;")))
    printf("[%s]", token);
  printf("\n");

  const char *hay = "one Two three";
  const char *found = memmem(hay, strlen(hay), "o t", 3);
  printf("memmem: %ld\n", found ? (long)(found - hay) : -1L);
  printf("strcasestr: %s\n", strcasestr(hay, "two"));

  int keys[] = {4, 8, 15, 16, 23, 42}, key = 16;
  size_t n = sizeof keys / sizeof keys[0];
  int *at = lfind(&key, keys, &n, sizeof *keys, same);
  printf("lfind: %ld\n", at ? (long)(at - keys) : -1L);

  printf("isatty: %d\n", isatty(1));
  /* write() goes around stdio's buffer: flush it first, natively. */
  fflush(stdout);
  return write(1, "done\n", 5) == 5 ? 0 : 1;
}
