/* A linked list of a symbolic length n < 4, with symbolic values, summed.
 *
 * Paths: one per length, 0..3: 4. The sum is printed as a symbolic value,
 * which does not fork.
 * expect: exit=4
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
  int value;
  struct node *next;
};

int main(void) {
  unsigned char n, values[3];
  klee_make_symbolic(&n, sizeof n, "n");
  klee_make_symbolic(values, sizeof values, "values");
  klee_assume(n < 4);
  struct node *head = NULL;
  for (unsigned i = 0; i < n; i++) {
    struct node *e = malloc(sizeof *e);
    e->value = values[i];
    e->next = head;
    head = e;
  }
  int sum = 0;
  for (struct node *e = head; e; e = e->next)
    sum += e->value;
  printf("sum %d\n", sum);
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return 0;
}
