//! Lines, fields and numbers: the lexical layer shared by the reader and detection.

/// Tokens longer than this are shortened in error messages.
const SHOW_MAX: usize = 40;

/// Non-blank lines split into whitespace-separated fields, with 1-based line numbers.
pub(super) struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
    /// Number of the last line read (0 before any).
    pub(super) last: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lines {
            inner: text.lines().enumerate(),
            last: 0,
        }
    }

    /// Fills `toks` with the fields of the next non-blank line and returns its number.
    pub(super) fn next_tokens(&mut self, toks: &mut Vec<&'a str>) -> Option<usize> {
        for (i, line) in self.inner.by_ref() {
            self.last = i + 1;
            toks.clear();
            toks.extend(line.split_ascii_whitespace());
            if !toks.is_empty() {
                return Some(i + 1);
            }
        }
        toks.clear();
        None
    }
}

/// A non-negative decimal `u32`; `what` names it in the error.
pub(super) fn number(tok: &str, what: &str) -> Result<u32, String> {
    if is_number(tok) {
        tok.parse::<u32>()
            .map_err(|_| format!("{what} {} is too large (at most {})", show(tok), u32::MAX))
    } else {
        Err(format!("expected {what} (a number), found {}", show(tok)))
    }
}

pub(super) fn is_number(tok: &str) -> bool {
    !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn is_name(tok: &str) -> bool {
    !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_alphabetic())
}

/// `n` followed by exactly `n` numbers.
pub(super) fn is_counted_list(toks: &[&str]) -> bool {
    toks.first()
        .and_then(|t| t.parse::<u64>().ok())
        .is_some_and(|n| n == toks.len() as u64 - 1)
        && toks.iter().all(|t| is_number(t))
}

/// A token quoted for an error message, shortened if long.
pub(super) fn show(tok: &str) -> String {
    if tok.chars().count() <= SHOW_MAX {
        format!("{tok:?}")
    } else {
        let head: String = tok.chars().take(SHOW_MAX).collect();
        format!("{head:?}…")
    }
}
