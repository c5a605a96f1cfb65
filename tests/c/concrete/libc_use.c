/* A program that uses the libc model (linked in as bitcode) and the
 * engine's own stdio and heap. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  const char *words[] = {"apple", "Banana", "cherry42", "7dwarves"};
  char buf[64];
  strcpy(buf, words[0]);
  strcat(buf, "+");
  strncat(buf, words[1], 3);
  printf("%s %zu %d %d\n", buf, strlen(buf), strcmp(words[0], words[1]) > 0, memcmp("abc", "abd", 3) < 0);
  int digits = 0;
  for (const char *p = words[2]; *p; p++) digits += isdigit((unsigned char)*p) != 0;
  printf("%d %d %ld %c\n", digits, atoi("  -123xyz"), strtol("ff", NULL, 16), toupper('q'));
  char *dup = malloc(strlen(words[3]) + 1);
  strcpy(dup, words[3]);
  fputc(dup[0], stdout);
  putc('\n', stdout);
  const char *hit = strchr(dup, 'w');
  printf("%s %p\n", hit ? hit : "none", (void *)strstr(dup, "zz"));
  free(dup);
  return (int)strlen(words[1]);
}
