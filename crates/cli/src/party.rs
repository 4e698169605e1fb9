//! One party's run over TCP: printing its report, the default terms.

use mixgc_session::{Audience, PartyReport, Terms};

pub use mixgc_studies::common::{
    open, owned_values, parse_deadline, parse_timeout, role_parser, Connection, SessionOptions,
};

use crate::progress::Feedback;
use crate::CliError;

/// Prints each output value this party learned on stdout (⌈width/4⌉ hex digits a line)
/// and the one-line summary on stderr (unless `--quiet`).
pub fn print_report(report: &PartyReport, feedback: &Feedback) -> Result<(), CliError> {
    if let Some(outputs) = &report.outputs {
        let text: String = outputs
            .iter()
            .map(|v| mixgc_circuit::values::to_hex(v) + "\n")
            .collect();
        crate::write_stdout(&text)?;
    }
    feedback.summary(&crate::summary::line(report));
    Ok(())
}

pub fn default_terms(garbler_values: Option<usize>, reveal: Audience) -> Terms {
    Terms {
        garbler_values,
        reveal,
    }
}
