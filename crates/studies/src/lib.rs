//! mixgc's studies: the measurements behind `mixgc bench`, `profile`, `plan` and `lenet`,
//! the planner for mixed Boolean/arithmetic programs (ABLE §5.2) they are built on, and
//! the command-line plumbing they share with the `mixgc` binary ([`common`]).

pub mod bar_chart;
pub mod bench;
pub mod common;
pub mod cpu_time;
pub mod haac_figures;
pub mod infer;
pub mod lenet;
pub mod plan;
pub mod planner;
pub mod profile;
