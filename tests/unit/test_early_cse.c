#include <criterion/criterion.h>
Test(early_cse, placeholder) {}
