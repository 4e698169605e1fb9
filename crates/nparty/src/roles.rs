//! Who owns each input value of a stream run and who learns its outputs; the input widths
//! and output layout come from the stream's header.

use mixgc_circuit::{Audience, PartyId};

use crate::NpartyError;

/// The input bits (indices into the header's input slots) of every input value.
pub(crate) fn input_bit_ranges(widths: &[u32]) -> Vec<std::ops::Range<usize>> {
    let mut start = 0;
    widths
        .iter()
        .map(|&w| {
            let r = start..start + w as usize;
            start = r.end;
            r
        })
        .collect()
}

/// Who owns each input value and who learns the outputs of a stream run: the same at every
/// party. The input widths and output layout come from the stream's header.
#[derive(Clone, Copy, Debug)]
pub struct Roles<'a> {
    /// `owners[v]` owns input value v.
    pub owners: &'a [usize],
    /// The parties that learn every output value.
    pub audience: Audience,
}

impl Roles<'_> {
    /// Checks the roles against a stream with input `widths`, a mesh of `parties` and this
    /// party's `inputs` (its own values, in order), before anything is sent.
    pub fn check(
        &self,
        widths: &[u32],
        me: usize,
        parties: usize,
        inputs: &[Vec<bool>],
    ) -> Result<(), NpartyError> {
        let usage = |s: String| Err(NpartyError::Usage(s));
        if self.owners.len() != widths.len() {
            return usage(format!(
                "the circuit has {} input values but {} owners were given",
                widths.len(),
                self.owners.len()
            ));
        }
        if let Some((v, &o)) = self.owners.iter().enumerate().find(|(_, &o)| o >= parties) {
            return usage(format!(
                "input value {v} is owned by party {o}, but the run has {parties} parties (0..{parties})"
            ));
        }
        if let Some(p) = self.audience.parties().find(|p| p.index() >= parties) {
            return usage(format!(
                "the output goes to party {}, but the run has {parties} parties",
                p.index()
            ));
        }
        let mine: Vec<u32> = self.mine(me).map(|v| widths[v]).collect();
        if mine.len() != inputs.len() {
            return usage(format!(
                "party {me} owns {} input values but gave {}",
                mine.len(),
                inputs.len()
            ));
        }
        for (k, (&w, x)) in mine.iter().zip(inputs).enumerate() {
            if x.len() != w as usize {
                return usage(format!(
                    "party {me}'s input #{k} must be {w} bits, got {}",
                    x.len()
                ));
            }
        }
        Ok(())
    }

    /// The input values `party` owns, in order.
    pub fn mine(&self, party: usize) -> impl Iterator<Item = usize> + '_ {
        self.owners
            .iter()
            .enumerate()
            .filter(move |(_, &o)| o == party)
            .map(|(v, _)| v)
    }

    /// The input bits (indices into the header's input slots) `party` owns, in order.
    pub(crate) fn bits_of(&self, widths: &[u32], party: usize) -> Vec<usize> {
        let ranges = input_bit_ranges(widths);
        self.mine(party).flat_map(|v| ranges[v].clone()).collect()
    }

    /// Whether `party` learns the outputs.
    pub fn learns(&self, party: usize) -> bool {
        PartyId::new(party).is_some_and(|p| self.audience.contains(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_name_what_is_wrong() {
        let audience = Audience::only(PartyId::new(0).unwrap());
        let roles = Roles {
            owners: &[0, 1],
            audience,
        };
        let err = |r: Result<(), NpartyError>| r.unwrap_err().to_string();
        assert!(err(roles.check(&[2], 0, 2, &[])).contains("2 owners"));
        assert!(err(roles.check(&[2, 3], 0, 1, &[])).contains("owned by party 1"));
        assert!(err(roles.check(&[2, 3], 0, 2, &[])).contains("owns 1 input values but gave 0"));
        assert!(err(roles.check(&[2, 3], 1, 2, &[vec![true; 2]])).contains("must be 3 bits"));
        roles.check(&[2, 3], 1, 2, &[vec![true; 3]]).unwrap();
        assert_eq!(roles.bits_of(&[2, 3], 1), [2, 3, 4]);
    }
}
