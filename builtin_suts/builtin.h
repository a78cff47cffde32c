/* Private to builtin_suts/: the built-in SUTs. */
#ifndef BROADCHECK_BUILTIN_H
#define BROADCHECK_BUILTIN_H

#include "broadcheck/sut.h"

#ifndef BC_VERSION_STRING
#define BC_VERSION_STRING "unknown"
#endif

/* The reference's answer to a shape question, as a SUT answer. */
void bc_answer_from_reference(const bc_params *p, int n, const bc_shape *shapes,
                              bc_sut_answer *answer);

extern const bc_sut bc_reference_sut;
/* mutants/shape_mutants.c */
extern const bc_sut bc_mutant_max_dim, bc_mutant_left_aligned, bc_mutant_uni_rank_unchecked,
    bc_mutant_pdpd_no_trim, bc_mutant_negative_accepted, bc_mutant_expand_as_broadcast_to,
    bc_mutant_broadcast_to_as_expand, bc_mutant_operand0_cannot_broadcast,
    bc_mutant_zero_wildcard, bc_mutant_pdpd_axis_after_trim, bc_mutant_mapping_allows_repeats,
    bc_mutant_select_roles_swapped,
    bc_mutant_matmul_k_unchecked, bc_mutant_matmul_promoted_kept;
/* mutants/value_mutants.c */
extern const bc_sut bc_mutant_contiguous_assumed, bc_mutant_flat_modulo,
    bc_mutant_sum_skips_stretched, bc_mutant_where_cond_full_shape, bc_mutant_nary_no_broadcast,
    bc_mutant_stretched_stride_kept, bc_mutant_explicit_as_right_aligned,
    bc_mutant_sum_keeps_leading, bc_mutant_broadcast_swapped_assign, bc_mutant_offset_ignored,
    bc_mutant_rank7_collapse, bc_mutant_simd_tail, bc_mutant_matmul_batch_modulo;
/* partial_mutants.c */
extern const bc_sut bc_mutant_partial_unknown_times_one, bc_mutant_partial_interval_as_one,
    bc_mutant_partial_symbols_equal, bc_mutant_partial_merge_intersects,
    bc_mutant_partial_matmul_unknown_batch_times_one, bc_mutant_partial_explicit_repeats_alone,
    bc_mutant_partial_unknown_mapping_right_aligned;

#endif
