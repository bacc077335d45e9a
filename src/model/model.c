/* under construction */
#include "liedyn/liedyn.h"
