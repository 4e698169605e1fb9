//! The names of the checks the honest party makes (WRK17 Fig. 2 and its proof, §4); a
//! failure returns [`crate::MaliciousError::CheckFailed`] with one of these, and
//! `docs/malicious.md` lists each with the deviation it catches and the test that shows it.

/// Fig. 2 step 5 (garbler's inputs): the MAC on the evaluator's share s_w of λ_w, checked
/// by the garbler before it reveals its masked input.
pub const GARBLER_INPUT_MASK: &str = "MAC on the evaluator's mask share of a garbler input";
/// Fig. 2 step 5 (evaluator's inputs): the MAC on the garbler's share r_w of λ_w, checked
/// by the evaluator before it sends its masked input.
pub const EVALUATOR_INPUT_MASK: &str = "MAC on the garbler's mask share of an evaluator input";
/// Fig. 2 step 3 (F_Pre's AND via Beaver, WRK17 §3 "leaky AND" replaced by a triple):
/// the MACs on the opened d = λ_α ⊕ a and e = λ_β ⊕ b, checked by both parties.
pub const AND_MASK_OPENING: &str = "MAC on an opened AND-mask difference (Beaver d, e)";
/// KRRW18 §4 (half-size authenticated garbling): the evaluator checks, before any output,
/// that every masked AND output ẑ_γ it computed satisfies ẑ_γ ⊕ λ_γ = (ẑ_α ⊕ λ_α)(ẑ_β ⊕ λ_β),
/// comparing a hash of the garbler's MACs with the keys it expects.
pub const AND_CONSISTENCY: &str = "the AND consistency check (KRRW18)";
/// The garbler checks the evaluator's masked AND outputs against a hash of the labels it
/// holds (each must be L_γ,0 ⊕ ẑ_γ·Δ_A) before it answers the consistency check, so a
/// lying evaluator cannot use the check to learn the garbler's mask shares.
pub const EVALUATOR_AND_LABELS: &str = "the evaluator's AND-output labels";
/// Fig. 2 step 7 (output to the evaluator): the MAC on the garbler's share of an output mask.
pub const EVALUATOR_OUTPUT_MASK: &str = "MAC on the garbler's mask share of an output";
/// Output to the garbler (WRK17 §4.1): the MAC on the evaluator's share of an output mask.
pub const GARBLER_OUTPUT_MASK: &str = "MAC on the evaluator's mask share of an output";
/// Output to the garbler: the evaluator's output label must be L_{w,0} ⊕ ẑ_w·Δ_A, which
/// authenticates the masked output bit ẑ_w it claims.
pub const GARBLER_OUTPUT_LABEL: &str = "the evaluator's output label";
