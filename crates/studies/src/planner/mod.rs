//! Planning mixed Boolean/arithmetic programs (ABLE §5.2): run a program in two timed
//! phases between two parties in one process ([`two_party`]), count it ([`count`]), and
//! predict its garbling and evaluation time from unit costs calibrated on this machine
//! ([`calibrate`], [`UnitCosts::predict`]). `mixgc plan` and `mixgc lenet` are built on it;
//! implement [`Phased`] to plan a program of your own.

mod calibrate;
mod phased;
mod programs;

pub use calibrate::{calibrate, Unit, UnitCosts, CALIBRATION_REPS};
pub use phased::{
    check, count, two_party, two_party_median, Phased, RunError, Timed, MAX_BUFFERED_TABLE_BYTES,
};
pub use programs::{lenet_expected, ClipRun, LenetRun};
