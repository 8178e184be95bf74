/* MEMFIT_PUBLIC_BEGIN and MEMFIT_PUBLIC_END: each public header wraps its
 * declarations in them. The library is compiled with hidden visibility, so
 * libmemfit.so and libmemfit_c.so export what these headers declare and
 * nothing declared under src/ (src/memfit.map then keeps only memfit::
 * and memfit_* of it). Empty where ELF visibility does not apply (Windows,
 * compilers other than GCC and Clang). For C and C++. */
#ifndef MEMFIT_VISIBILITY_H_
#define MEMFIT_VISIBILITY_H_

#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define MEMFIT_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define MEMFIT_PUBLIC_END _Pragma("GCC visibility pop")
#else
#define MEMFIT_PUBLIC_BEGIN
#define MEMFIT_PUBLIC_END
#endif

#endif /* MEMFIT_VISIBILITY_H_ */
