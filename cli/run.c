/* liedyn run / convergence (under construction). */
#include "cli.h"
