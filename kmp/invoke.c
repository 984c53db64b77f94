/*
 * invoke.c - calls a parallel region's microtask with its captured
 * arguments.  clang passes each captured variable as one more argument
 * after (gtid *, bound tid *), so a region's body can take any number of
 * arguments: on x86-64 a few lines of assembly lay them out as the
 * calling convention wants (the first four in registers, the rest on the
 * stack), as libomp's __kmp_invoke_microtask does; elsewhere a switch
 * covers up to 15.
 */
#include "kmp.h"

#if defined(__x86_64__)
/* lc_kmp_invoke(fn, gtid *, tid *, argc, argv): argv has at least four
 * entries (the caller pads it).  rsp is 16-aligned at the call: the frame
 * pointer push aligns it, and an odd number of stack arguments gets 8
 * bytes of padding first.  %al = 0: no vector registers (the microtask's
 * type is variadic). */
__asm__(".text\n"
        ".p2align 4\n"
        ".type lc_kmp_invoke,@function\n"
        "lc_kmp_invoke:\n"
        ".cfi_startproc\n"
        "    pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "    movq %rdi, %r11\n"          /* fn */
        "    movq %rsi, %rdi\n"          /* gtid * */
        "    movq %rdx, %rsi\n"          /* tid * */
        "    movslq %ecx, %rax\n"        /* argc */
        "    movq %r8, %r10\n"           /* argv */
        "    movq %rax, %rcx\n"
        "    subq $4, %rcx\n"            /* arguments on the stack */
        "    jle 2f\n"
        "    testq $1, %rcx\n"
        "    jz 1f\n"
        "    subq $8, %rsp\n"
        "1:  movq -8(%r10,%rax,8), %rdx\n"   /* argv[argc - 1] down to argv[4] */
        "    pushq %rdx\n"
        "    decq %rax\n"
        "    decq %rcx\n"
        "    jnz 1b\n"
        "2:  movq 0(%r10), %rdx\n"
        "    movq 8(%r10), %rcx\n"
        "    movq 16(%r10), %r8\n"
        "    movq 24(%r10), %r9\n"
        "    xorl %eax, %eax\n"
        "    call *%r11\n"
        "    leave\n"
        ".cfi_def_cfa %rsp, 8\n"
        "    ret\n"
        ".cfi_endproc\n"
        ".size lc_kmp_invoke, .-lc_kmp_invoke\n");
void lc_kmp_invoke(kmpc_micro fn, kmp_int32 *gtid, kmp_int32 *tid, int argc, void **argv);

void lc_kmp_invoke_microtask(kmpc_micro fn, kmp_int32 gtid, kmp_int32 tid, int argc, void **argv)
{
    void *regs[4] = { 0 };
    if (argc < 4) {   /* the assembly reads four register arguments */
        for (int i = 0; i < argc; i++)
            regs[i] = argv[i];
        argv = regs;
    }
    lc_kmp_invoke(fn, &gtid, &tid, argc, argv);
}
#else
void lc_kmp_invoke_microtask(kmpc_micro fn, kmp_int32 gtid, kmp_int32 tid, int argc, void **argv)
{
    kmp_int32 *g = &gtid, *t = &tid;
    void **a = argv;
    switch (argc) {
    case 0: fn(g, t); break;
    case 1: fn(g, t, a[0]); break;
    case 2: fn(g, t, a[0], a[1]); break;
    case 3: fn(g, t, a[0], a[1], a[2]); break;
    case 4: fn(g, t, a[0], a[1], a[2], a[3]); break;
    case 5: fn(g, t, a[0], a[1], a[2], a[3], a[4]); break;
    case 6: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5]); break;
    case 7: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
    case 8: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
    case 9: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]); break;
    case 10: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]); break;
    case 11: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]); break;
    case 12: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
        break;
    case 13: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                a[12]);
        break;
    case 14: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                a[12], a[13]);
        break;
    case 15: fn(g, t, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                a[12], a[13], a[14]);
        break;
    default:
        gomp_unsupported("__kmpc_fork_call", "more than 15 captured variables on this "
                         "architecture");
    }
}
#endif
