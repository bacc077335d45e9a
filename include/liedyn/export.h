/* liedyn/export.h — wraps public declarations: C linkage and default symbol visibility
 * (the library is built with hidden visibility; only what these macros enclose is exported). */
#ifndef LIEDYN_EXPORT_H
#define LIEDYN_EXPORT_H

#ifdef __cplusplus
#define LD_EXTERN_C_BEGIN extern "C" {
#define LD_EXTERN_C_END   }
#else
#define LD_EXTERN_C_BEGIN
#define LD_EXTERN_C_END
#endif

#if defined(__GNUC__)
#define LD_BEGIN_DECLS LD_EXTERN_C_BEGIN _Pragma("GCC visibility push(default)")
#define LD_END_DECLS   _Pragma("GCC visibility pop") LD_EXTERN_C_END
#else
#define LD_BEGIN_DECLS LD_EXTERN_C_BEGIN
#define LD_END_DECLS   LD_EXTERN_C_END
#endif

#endif
