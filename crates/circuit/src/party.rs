//! The parties of a computation and who learns an output, for any number of parties. A
//! two-party run names party 0 the garbler and party 1 the evaluator.

use std::fmt;
use std::str::FromStr;

/// Most parties a computation may have (an [`Audience`] is a 64-bit set).
pub const MAX_PARTIES: usize = 64;

/// One party of a computation, numbered from 0 (below [`MAX_PARTIES`]). Displayed as
/// `garbler`, `evaluator` or `party N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartyId(u8);

impl PartyId {
    /// The party that garbles a two-party run.
    pub const GARBLER: PartyId = PartyId(0);
    /// The party that evaluates a two-party run.
    pub const EVALUATOR: PartyId = PartyId(1);

    /// Party `index`, if it is below [`MAX_PARTIES`].
    pub const fn new(index: usize) -> Option<PartyId> {
        if index < MAX_PARTIES {
            Some(PartyId(index as u8))
        } else {
            None
        }
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for PartyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PartyId::GARBLER => f.write_str("garbler"),
            PartyId::EVALUATOR => f.write_str("evaluator"),
            PartyId(n) => write!(f, "party {n}"),
        }
    }
}

/// Who learns an output: a set of parties. Displayed as `both` for [`Audience::BOTH`], else
/// as its parties' names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Audience(u64);

impl Audience {
    /// Both parties of a two-party run.
    pub const BOTH: Audience = Audience::only(PartyId::GARBLER).with(PartyId::EVALUATOR);

    /// `party` alone.
    pub const fn only(party: PartyId) -> Audience {
        Audience(1 << party.0)
    }

    /// This audience and `party`.
    pub const fn with(self, party: PartyId) -> Audience {
        Audience(self.0 | Audience::only(party).0)
    }

    pub const fn contains(self, party: PartyId) -> bool {
        self.0 & Audience::only(party).0 != 0
    }

    /// The parties in this audience, in order.
    pub fn parties(self) -> impl Iterator<Item = PartyId> {
        (0..MAX_PARTIES as u8)
            .map(PartyId)
            .filter(move |&p| self.contains(p))
    }
}

/// Both parties.
impl Default for Audience {
    fn default() -> Audience {
        Audience::BOTH
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Audience::BOTH {
            return f.write_str("both");
        }
        let mut parties = self.parties();
        match parties.next() {
            None => f.write_str("nobody"),
            Some(first) => {
                write!(f, "{first}")?;
                parties.try_for_each(|p| write!(f, ", {p}"))
            }
        }
    }
}

/// The two-party audiences by name: `both`, `garbler` or `evaluator`.
impl FromStr for Audience {
    type Err = String;
    fn from_str(s: &str) -> Result<Audience, String> {
        match s {
            "both" => Ok(Audience::BOTH),
            "garbler" => Ok(Audience::only(PartyId::GARBLER)),
            "evaluator" => Ok(Audience::only(PartyId::EVALUATOR)),
            _ => Err(format!(
                "unknown reveal mode '{s}' (expected both, garbler or evaluator)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parties_are_named_and_numbered() {
        assert_eq!(PartyId::GARBLER.to_string(), "garbler");
        assert_eq!(PartyId::EVALUATOR.to_string(), "evaluator");
        let third = PartyId::new(2).unwrap();
        assert_eq!((third.index(), third.to_string()), (2, "party 2".to_string()));
        assert!(PartyId::new(MAX_PARTIES - 1).is_some() && PartyId::new(MAX_PARTIES).is_none());
    }

    #[test]
    fn audiences_are_sets_of_parties() {
        let (g, e) = (PartyId::GARBLER, PartyId::EVALUATOR);
        let last = PartyId::new(MAX_PARTIES - 1).unwrap();
        assert!(Audience::BOTH.contains(g) && Audience::BOTH.contains(e));
        assert!(!Audience::BOTH.contains(last));
        assert!(Audience::only(e).contains(e) && !Audience::only(e).contains(g));
        assert_eq!(Audience::only(g).with(e), Audience::BOTH);
        let wide = Audience::only(last).with(g);
        assert_eq!(wide.parties().collect::<Vec<_>>(), [g, last]);
        assert_eq!(wide.to_string(), "garbler, party 63");
        assert_eq!(Audience::default(), Audience::BOTH);
        for name in ["both", "garbler", "evaluator"] {
            assert_eq!(name.parse::<Audience>().unwrap().to_string(), name);
        }
        assert!("all"
            .parse::<Audience>()
            .unwrap_err()
            .contains("unknown reveal mode 'all'"));
    }
}
