/*
 * liedyn — time integration of rigid and flexible multibody dynamics on Lie groups.
 *
 * Umbrella header: version, the status convention shared by every module, and the
 * module headers. Conventions (quaternion storage, frames, composition side, units)
 * are stated in docs/conventions.md and repeated where a declaration depends on them.
 */
#ifndef LIEDYN_LIEDYN_H
#define LIEDYN_LIEDYN_H

#include "liedyn/export.h"

LD_BEGIN_DECLS

#define LD_VERSION_MAJOR 0
#define LD_VERSION_MINOR 1
#define LD_VERSION_PATCH 0

/*
 * Status codes. One convention for the library and for user callbacks alike:
 *   0   success,
 *   > 0 recoverable: the caller may retry (e.g. with a smaller step),
 *   < 0 fatal for the operation: nothing was changed that the caller cannot restore.
 * The library never calls exit() or abort().
 */
enum ld_status {
    LD_OK = 0,
    LD_RETRY = 1,            /* recoverable failure: retry with other parameters (e.g. a model's
                                callback asked for a smaller step) */
    LD_RETRY_ERROR_TEST = 2, /* step rejected: its error estimate exceeded the tolerance */
    LD_RETRY_NEWTON = 3,     /* step rejected: Newton did not converge in max_iter iterations */
    LD_RETRY_SINGULAR = 4,   /* step rejected: singular iteration or stage matrix */
    LD_RETRY_NONFINITE = 5,  /* step rejected: a non-finite value appeared */
    LD_EDOMAIN = -1,         /* argument outside the function's domain (e.g. zero quaternion) */
    LD_ESINGULAR = -2,       /* parametrization or matrix singular at this argument */
    LD_ENOMEM = -3,          /* allocation failed */
    LD_EINVAL = -4,          /* invalid argument or option */
    LD_EIO = -5,             /* input/output error */
    LD_ENOTSUPPORTED = -6,   /* requested combination is not supported */
    LD_ETOOMUCHWORK = -7,    /* too much work: a step limit was reached */
    LD_ESTEPSIZE = -8        /* the step fell below its minimum or the resolution of t (the
                                error tolerance cannot be met there) */
};

/* Human-readable, static description of a status code; never NULL. */
const char *ld_strerror(int status);

/* Library version as "MAJOR.MINOR.PATCH"; static string, never NULL. */
const char *ld_version(void);

LD_END_DECLS

#include "liedyn/lie.h"
#include "liedyn/rk.h"
#include "liedyn/controller.h"
#include "liedyn/erk.h"
#include "liedyn/attitude.h"
#include "liedyn/linalg.h"
#include "liedyn/model.h"
#include "liedyn/system.h"
#include "liedyn/coords.h"
#include "liedyn/integrator.h"
#include "liedyn/output.h"
#include "liedyn/runcheck.h"
#include "liedyn/actuator.h"

#endif /* LIEDYN_LIEDYN_H */
