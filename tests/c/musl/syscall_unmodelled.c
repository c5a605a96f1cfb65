/* A system call the model's layer beneath musl does not serve ends the
 * path as an unmodelled call naming it, at the program's call, never with
 * an invented answer: musl's getpid makes the system call getpid.
 * expect: external=1
 */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("pid %d\n", (int)getpid()); // ERROR: external
  return 0;
}
