//! `--progress` and `--quiet`: drawn by `mixgc_studies::common::Feedback`, shared with the
//! studies (bench, profile, plan, lenet) so one mechanism serves every command.

pub use mixgc_studies::common::Feedback;
