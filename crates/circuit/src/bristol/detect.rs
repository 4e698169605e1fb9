//! Telling Bristol Fashion from the legacy format.

use super::lex::{is_counted_list, is_name, is_number, Lines};
use super::Format;

/// Tells the two formats apart from the first three non-blank lines.
///
/// Bristol Fashion: line 2 is `niv` followed by exactly `niv` numbers and line 3 is
/// `nov` followed by exactly `nov` numbers. Legacy: line 2 is exactly three numbers and
/// the next non-blank line, if any, is a gate (its last field is a name). A header like
/// `2 64 64` fits both on its own; line 3 decides. `None` if neither fits.
pub fn detect(text: &str) -> Option<Format> {
    let mut lines = Lines::new(text.strip_prefix('\u{feff}').unwrap_or(text));
    let mut toks = Vec::new();
    lines.next_tokens(&mut toks)?;
    if toks.len() != 2 || !toks.iter().all(|t| is_number(t)) {
        return None;
    }
    lines.next_tokens(&mut toks)?;
    if !toks.iter().all(|t| is_number(t)) {
        return None;
    }
    let line2 = toks.clone();
    let has_line3 = lines.next_tokens(&mut toks).is_some();
    if has_line3 && is_counted_list(&line2) && is_counted_list(&toks) {
        return Some(Format::Fashion);
    }
    let line3_is_gate = toks.last().is_some_and(|t| is_name(t));
    if line2.len() == 3 && (!has_line3 || line3_is_gate) {
        return Some(Format::Legacy);
    }
    None
}
