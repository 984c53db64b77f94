/*
 * interop.c - the OpenMP 5.1 interop query routines (omp_get_interop_*,
 * omp_get_num_interop_properties) and their Fortran spellings, for a
 * runtime with no devices: the only interop object there can be is
 * omp_interop_none (NULL).
 *
 * libomp 14 forwards each to libomptarget (dlsym RTLD_NEXT) and, without
 * it, answers 0 / NULL and leaves *ret_code as it was; here the answers
 * are OpenMP 5.1's (section 3.12) for omp_interop_none instead, which a
 * program may test for:
 * - omp_get_interop_int/ptr/str: 0 / NULL, *ret_code = omp_irc_empty;
 * - omp_get_num_interop_properties: 0 (no implementation-defined ones);
 * - omp_get_interop_name / type_desc: the spec's name (Table 3.1) and a C
 *   type with a description for the predefined property ids
 *   omp_ipr_targetsync (-9) .. omp_ipr_fr_id (-1), NULL for any other id;
 * - omp_get_interop_rc_desc: Table 3.2's meaning of each omp_irc_* code,
 *   NULL for any other value.
 * A non-NULL interop cannot have come from this runtime (no interop
 * construct makes one without a device): the int/ptr/str queries answer
 * omp_irc_other for it rather than read it.
 *
 * The Fortran forms take the same arguments, by value, as libomp's
 * (kmp_ftn_entry.h gives FTN_GET_INTEROP_* the C signature).
 */
#include <stddef.h>
#include <stdint.h>

#include "kmp.h"

enum {
    omp_ipr_first = -9,   /* omp_ipr_targetsync */
    omp_irc_no_value = 1,
    omp_irc_success = 0,
    omp_irc_empty = -1,
    omp_irc_out_of_range = -2,
    omp_irc_type_int = -3,
    omp_irc_type_ptr = -4,
    omp_irc_type_str = -5,
    omp_irc_other = -6,
};

/* Indexed by -property_id - 1: omp_ipr_fr_id (-1) first. */
static const char *const names[] = {
    "fr_id", "fr_name", "vendor", "vendor_name", "device_num",
    "platform", "device", "device_context", "targetsync",
};
static const char *const type_descs[] = {
    "omp_interop_fr_t: the foreign runtime id of the context",
    "const char *: the foreign runtime name of the context",
    "intptr_t: the vendor of the context",
    "const char *: the vendor name of the context",
    "int: the OpenMP device number of the device",
    "void *: a foreign platform handle, usually spanning several devices",
    "void *: a foreign device handle",
    "void *: a handle to an instance of a foreign device context",
    "void *: a handle to a synchronization object of a foreign execution context",
};
/* Indexed by 1 - ret_code: omp_irc_no_value (1) first. */
static const char *const rc_descs[] = {
    "parameters have valid values, but the property has no meaningful value",
    "successful, the value is usable",
    "the interop object is omp_interop_none",
    "the property id is out of range",
    "the property's type is int: use omp_get_interop_int",
    "the property's type is a pointer: use omp_get_interop_ptr",
    "the property's type is a string: use omp_get_interop_str",
    "other error: see omp_get_interop_rc_desc",
};

KMP_EXPORT int omp_get_num_interop_properties(const void *interop)
{
    (void)interop;
    return 0;
}

/* What a value query answers in *ret_code (which may be NULL). */
static void query(const void *interop, int *ret_code)
{
    if (ret_code)
        *ret_code = interop ? omp_irc_other : omp_irc_empty;
}

KMP_EXPORT intptr_t omp_get_interop_int(const void *interop, int property_id, int *ret_code)
{
    (void)property_id;
    query(interop, ret_code);
    return 0;
}

KMP_EXPORT void *omp_get_interop_ptr(const void *interop, int property_id, int *ret_code)
{
    (void)property_id;
    query(interop, ret_code);
    return NULL;
}

KMP_EXPORT const char *omp_get_interop_str(const void *interop, int property_id, int *ret_code)
{
    (void)property_id;
    query(interop, ret_code);
    return NULL;
}

KMP_EXPORT const char *omp_get_interop_name(const void *interop, int property_id)
{
    (void)interop;
    if (property_id < omp_ipr_first || property_id >= 0)
        return NULL;
    return names[-property_id - 1];
}

KMP_EXPORT const char *omp_get_interop_type_desc(const void *interop, int property_id)
{
    (void)interop;
    if (property_id < omp_ipr_first || property_id >= 0)
        return NULL;
    return type_descs[-property_id - 1];
}

KMP_EXPORT const char *omp_get_interop_rc_desc(const void *interop, int ret_code)
{
    (void)interop;
    if (ret_code < omp_irc_other || ret_code > omp_irc_no_value)
        return NULL;
    return rc_descs[omp_irc_no_value - ret_code];
}

/* --- Fortran: libomp's signatures, the same as C's --- */

KMP_EXPORT int omp_get_num_interop_properties_(const void *interop)
{
    return omp_get_num_interop_properties(interop);
}

KMP_EXPORT intptr_t omp_get_interop_int_(const void *interop, int property_id, int *ret_code)
{
    return omp_get_interop_int(interop, property_id, ret_code);
}

KMP_EXPORT void *omp_get_interop_ptr_(const void *interop, int property_id, int *ret_code)
{
    return omp_get_interop_ptr(interop, property_id, ret_code);
}

KMP_EXPORT const char *omp_get_interop_str_(const void *interop, int property_id, int *ret_code)
{
    return omp_get_interop_str(interop, property_id, ret_code);
}

KMP_EXPORT const char *omp_get_interop_name_(const void *interop, int property_id)
{
    return omp_get_interop_name(interop, property_id);
}

KMP_EXPORT const char *omp_get_interop_type_desc_(const void *interop, int property_id)
{
    return omp_get_interop_type_desc(interop, property_id);
}

KMP_EXPORT const char *omp_get_interop_rc_desc_(const void *interop, int ret_code)
{
    return omp_get_interop_rc_desc(interop, ret_code);
}
