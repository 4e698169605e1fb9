//! What every party of a run agrees on, and what a run gives back.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use mixgc_circuit::{Audience, Circuit};
use mixgc_compile::{compile, CompiledCircuit};

use crate::{NpartyError, Roles};

/// Which n-party protocol computes the circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protocol {
    /// XOR sharing of every wire, one round per AND level.
    Gmw,
    /// Multiparty garbling: the tables built jointly in a constant number of rounds, then a
    /// constant-round online phase.
    #[default]
    Bmr,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Gmw => "gmw",
            Protocol::Bmr => "bmr",
        })
    }
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Protocol, String> {
        match s {
            "gmw" => Ok(Protocol::Gmw),
            "bmr" => Ok(Protocol::Bmr),
            _ => Err(format!("unknown protocol '{s}' (expected bmr or gmw)")),
        }
    }
}

/// A circuit, who owns each input value and who learns the outputs: the same at every
/// party (the handshake compares them).
#[derive(Clone, Copy, Debug)]
pub struct Job<'c> {
    pub circuit: &'c Circuit,
    /// `owners[v]` owns input value v.
    pub owners: &'c [usize],
    /// The parties that learn every output value.
    pub audience: Audience,
}

/// What a run gives this party.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The output values (least significant bit first) if this party is in the audience.
    pub outputs: Option<Vec<Vec<bool>>>,
    /// AND gates computed.
    pub ands: u64,
    /// Setup and input-independent work: base OTs, correlations, joint garbling.
    pub offline: Duration,
    /// From the inputs to the outputs.
    pub online: Duration,
    /// Communication rounds of the online phase (AND levels for GMW).
    pub online_rounds: u64,
    /// Bytes sent to and received from each party by the end of the setup (the mesh's
    /// handshake and the base OTs), included in the mesh's counters: subtract them for the
    /// protocol's own communication.
    pub setup_bytes: Vec<(u64, u64)>,
}

impl<'c> Job<'c> {
    /// Who owns each input and who learns the outputs.
    pub fn roles(&self) -> Roles<'c> {
        Roles {
            owners: self.owners,
            audience: self.audience,
        }
    }

    /// Checks the job against a mesh of `parties` and this party's `inputs` (its own values,
    /// in circuit order): the names and widths a user gets wrong, before anything is sent.
    pub fn check(&self, me: usize, parties: usize, inputs: &[Vec<bool>]) -> Result<(), NpartyError> {
        self.roles()
            .check(&self.circuit.input_widths, me, parties, inputs)
    }

    /// [`Job::check`], then the circuit validated and compiled to the stream the protocols run.
    pub(crate) fn compiled(
        &self,
        me: usize,
        parties: usize,
        inputs: &[Vec<bool>],
    ) -> Result<CompiledCircuit, NpartyError> {
        self.check(me, parties, inputs)?;
        self.circuit
            .validate()
            .map_err(|e| NpartyError::Usage(format!("the circuit is not valid: {e}")))?;
        Ok(compile(self.circuit))
    }

    /// The input values `party` owns, in circuit order.
    pub fn mine(&self, party: usize) -> impl Iterator<Item = usize> + 'c {
        let owners = self.owners;
        owners
            .iter()
            .enumerate()
            .filter(move |(_, &o)| o == party)
            .map(|(v, _)| v)
    }

    /// Whether `party` learns the outputs.
    pub fn learns(&self, party: usize) -> bool {
        self.roles().learns(party)
    }
}
