/* The hook bench/c_profile.c defines, declared for the generated model's source. */
#include <stddef.h>
void net_step_done(size_t k);
