/* Status strings and version. */
#include "liedyn/liedyn.h"

#define LD_STR2(x) #x
#define LD_STR(x)  LD_STR2(x)

const char *ld_strerror(int status) {
    switch (status) {
    case LD_OK:
        return "success";
    case LD_RETRY:
        return "recoverable failure (retry with other parameters)";
    case LD_RETRY_ERROR_TEST:
        return "step rejected: error estimate above the tolerance";
    case LD_RETRY_NEWTON:
        return "step rejected: Newton did not converge";
    case LD_RETRY_SINGULAR:
        return "step rejected: singular matrix";
    case LD_RETRY_NONFINITE:
        return "step rejected: non-finite value";
    case LD_EDOMAIN:
        return "argument outside the function's domain";
    case LD_ESINGULAR:
        return "singular parametrization or matrix";
    case LD_ENOMEM:
        return "out of memory";
    case LD_EINVAL:
        return "invalid argument";
    case LD_EIO:
        return "input/output error";
    case LD_ENOTSUPPORTED:
        return "not supported";
    case LD_ETOOMUCHWORK:
        return "too much work: step limit reached";
    case LD_ESTEPSIZE:
        return "step size below its minimum: the tolerance cannot be met";
    default:
        return status > 0 ? "recoverable failure" : "unknown error";
    }
}

const char *ld_version(void) {
    return LD_STR(LD_VERSION_MAJOR) "." LD_STR(LD_VERSION_MINOR) "." LD_STR(LD_VERSION_PATCH);
}
