//! Maliciously secure two-party computation: authenticated garbling.
//!
//! The protocol is Wang–Ranellucci–Katz, "Authenticated Garbling and Efficient Maliciously
//! Secure Two-Party Computation" (CCS 2017, ePrint 2017/030, here WRK17) with the half-size
//! garbling and preprocessing improvements of Katz–Ranellucci–Rosulek–Wang (CRYPTO 2018,
//! ePrint 2018/578, KRRW18). Party A is the garbler, party B the evaluator, as in WRK17.
//!
//! Layout (the data path as folders):
//! - [`auth`]: IT-MACs and the authenticated shares every other module trades in, plus the
//!   [`auth::Preprocessor`] trait (WRK17's F_Pre) that separates the function-independent
//!   preprocessing from the function-dependent garbling and the online phase.
//! - [`prep`]: that preprocessing against a malicious peer ([`Kos15Preprocessor`]): endemic
//!   base OT, KOS15-checked COT, authenticated bits, KRRW18 leaky ANDs, WRK17 bucketing.
//! - [`garble`]: function-dependent preprocessing, authenticated garbling and the online
//!   phase (WRK17 Fig. 2, KRRW18 §4 half-size garbling), batch by batch: [`garble::run_garbler`], [`garble::run_evaluator`].
//! - [`shared`]: one connection for both phases ([`preprocess_over`]).
//! - [`dealer`]: an insecure trusted-dealer preprocessor, for tests only.

pub mod auth;
pub mod dealer;
pub mod error;
pub mod garble;
pub mod prep;
pub mod shared;

pub use auth::{AuthShare, AuthTriple, Delta, Preprocessor, Role};
pub use error::MaliciousError;
pub use garble::{
    run_evaluator, run_evaluator_stream, run_garbler, run_garbler_stream, MaliciousProgram, Settings, Terms,
    DEFAULT_BATCH_ANDS, MAX_BATCH_ANDS,
};
pub use prep::Kos15Preprocessor;
pub use shared::{preprocess_over, SharedChannel};
