//! Programs on n parties. A program written once on [`Backend`] is recorded to the circuit
//! IR — every party records the same program, so the circuits agree (the handshake compares
//! their digests) — then run with GMW or BMR: GMW levels the recorded circuit, so its rounds
//! follow the program's AND depth, never one round per gate.
//!
//! While recording, an output's value is not known yet: [`Backend::output`] returns `None`,
//! and the outputs come back from the run. Programs whose control flow depends on a revealed
//! value cannot be recorded.
//!
//! Recording holds the whole circuit in memory. [`crate::bmr::run_program`] runs a program
//! by BMR gate by gate instead, in memory bounded by its live wires plus one batch, with
//! outputs revealed as the program asks (so control flow may depend on them).

use mixgc_circuit::{Audience, PartyId};
use mixgc_program::{checked_input, Backend, ProgramError, Recorded, Recorder};

/// Records a program for party `me` of `parties`: the circuit, and this party's own input
/// values in the order the circuit takes them.
#[derive(Debug)]
pub struct ProgramRecorder {
    me: PartyId,
    all: Audience,
    recorder: Recorder,
    mine: Vec<Vec<bool>>,
    inputs: usize,
    audience: Option<Audience>,
}

/// What recording a program gave one party.
#[derive(Clone, Debug)]
pub struct RecordedProgram {
    pub recorded: Recorded,
    /// This party's input values, in circuit order.
    pub inputs: Vec<Vec<bool>>,
    /// Who learns the outputs (every output of a program goes to the same parties).
    pub audience: Audience,
}

impl RecordedProgram {
    /// The owner of each input value, as party indices.
    pub fn owners(&self) -> Vec<usize> {
        self.recorded.owners.iter().map(|p| p.index()).collect()
    }
}

impl ProgramRecorder {
    /// A recorder for party `me` of `parties` (2 to 64).
    pub fn new(me: PartyId, parties: usize) -> Result<ProgramRecorder, ProgramError> {
        if !(2..=mixgc_circuit::MAX_PARTIES).contains(&parties) || me.index() >= parties {
            return Err(ProgramError::Unsupported(
                "a program runs among 2 to 64 parties, this one among them",
            ));
        }
        let mut all = Audience::only(PartyId::GARBLER);
        for p in 1..parties {
            all = all.with(PartyId::new(p).expect("below 64"));
        }
        Ok(ProgramRecorder {
            me,
            all,
            recorder: Recorder::default(),
            mine: Vec::new(),
            inputs: 0,
            audience: None,
        })
    }

    /// The recorded program. Its inputs are ordered by owner (each owner's in declaration
    /// order), so this party's values keep the order it declared them in.
    pub fn finish(self) -> Result<RecordedProgram, ProgramError> {
        let audience = self
            .audience
            .ok_or(ProgramError::Unsupported("the program reveals no output"))?;
        Ok(RecordedProgram {
            recorded: self.recorder.finish(),
            inputs: self.mine,
            audience,
        })
    }
}

impl Backend for ProgramRecorder {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.recorder.xor(a, b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.recorder.and(a, b)
    }
    fn not(&mut self, a: u32) -> u32 {
        self.recorder.not(a)
    }
    fn constant(&mut self, value: bool) -> u32 {
        self.recorder.constant(value)
    }

    /// Records the input; this party's own values are checked and kept.
    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<u32>, ProgramError> {
        let index = self.inputs;
        if !self.all.contains(owner) {
            return Err(ProgramError::NoSuchParty(owner));
        }
        if owner == self.me {
            self.mine
                .push(checked_input(index, owner, width, value)?.to_vec());
        }
        self.inputs += 1;
        self.recorder.input(owner, width, None)
    }

    /// To every party.
    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.output_to(wires, self.all)
    }

    fn output_to(&mut self, wires: &[u32], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        if let Some(p) = to.parties().find(|&p| !self.all.contains(p)) {
            return Err(ProgramError::NoSuchParty(p));
        }
        match self.audience {
            Some(a) if a != to => {
                return Err(ProgramError::Unsupported(
                    "an n-party program reveals all its outputs to the same parties",
                ))
            }
            _ => self.audience = Some(to),
        }
        self.recorder.output(wires)?;
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{memory_mesh, Job, Protocol};
    use mixgc_core::new_rng;
    use mixgc_program::apps::{auction_program, voting_program};

    /// Records `program` at every party of a mesh of `n`, runs it with `protocol` and
    /// returns every party's outputs.
    fn run_program(
        n: usize,
        protocol: Protocol,
        program: impl Fn(&mut ProgramRecorder, usize) + Sync,
    ) -> Vec<Option<Vec<Vec<bool>>>> {
        let program = &program;
        std::thread::scope(|s| {
            let hs: Vec<_> = memory_mesh(n)
                .into_iter()
                .map(|mut mesh| {
                    s.spawn(move || {
                        let me = mesh.me();
                        let mut r = ProgramRecorder::new(PartyId::new(me).unwrap(), n).unwrap();
                        program(&mut r, me);
                        let p = r.finish().unwrap();
                        let owners = p.owners();
                        let job = Job {
                            circuit: &p.recorded.circuit,
                            owners: &owners,
                            audience: p.audience,
                        };
                        let mut rng = new_rng(Some(4), me as u64);
                        crate::run(
                            &mut mesh,
                            protocol,
                            &job,
                            &p.inputs,
                            &[9; 32],
                            &mut rng,
                            &Default::default(),
                        )
                        .unwrap()
                        .outputs
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    fn to_u64(bits: &[bool]) -> u64 {
        bits.iter().rev().fold(0, |a, &b| a << 1 | b as u64)
    }

    #[test]
    fn the_auction_and_the_vote_run_as_programs_on_both_protocols() {
        let bids = [5u64, 900, 17, 900, 3];
        let votes = [2u64, 0, 2, 1, 0];
        for protocol in [Protocol::Bmr, Protocol::Gmw] {
            let got = run_program(5, protocol, |r, me| {
                let mut mine = [None; 5];
                mine[me] = Some(bids[me]);
                assert_eq!(auction_program(r, 5, 12, &mine).unwrap(), None);
            });
            for g in got {
                let g = g.unwrap();
                // Party 1 and party 3 tie on 900: the lower index wins.
                assert_eq!((to_u64(&g[0]), to_u64(&g[1])), (1, 900), "{protocol}");
            }
            let got = run_program(5, protocol, |r, me| {
                let mut mine = [None; 5];
                mine[me] = Some(votes[me]);
                voting_program(r, 5, 3, &mine).unwrap();
            });
            // Candidates 0 and 2 tie with two votes each: the lower index wins.
            assert!(
                got.iter().all(|g| to_u64(&g.as_ref().unwrap()[0]) == 0),
                "{protocol}"
            );
        }
    }

    #[test]
    fn outputs_to_a_subset_reach_only_it() {
        let only = Audience::only(PartyId::new(2).unwrap());
        let got = run_program(3, Protocol::Bmr, |r, me| {
            let x = r
                .input(
                    PartyId::new(0).unwrap(),
                    4,
                    (me == 0).then_some(&[true, false, true, false][..]),
                )
                .unwrap();
            let y = r
                .input(
                    PartyId::new(1).unwrap(),
                    4,
                    (me == 1).then_some(&[true, true, false, false][..]),
                )
                .unwrap();
            let z: Vec<u32> = x.iter().zip(&y).map(|(&a, &b)| r.and(a, b)).collect();
            r.output_to(&z, only).unwrap();
        });
        assert_eq!(got[0], None);
        assert_eq!(got[1], None);
        assert_eq!(got[2], Some(vec![vec![true, false, false, false]]));
    }

    #[test]
    fn recording_refuses_what_it_cannot_run() {
        let mut r = ProgramRecorder::new(PartyId::new(0).unwrap(), 3).unwrap();
        assert!(matches!(
            r.input(PartyId::new(3).unwrap(), 1, None),
            Err(ProgramError::NoSuchParty(_))
        ));
        assert!(matches!(
            r.input(PartyId::new(0).unwrap(), 2, Some(&[true])),
            Err(ProgramError::InputWidth { .. })
        ));
        let w = r.input(PartyId::new(1).unwrap(), 1, None).unwrap();
        r.output(&w).unwrap();
        assert!(r.output_to(&w, Audience::only(PartyId::new(1).unwrap())).is_err());
        assert!(ProgramRecorder::new(PartyId::new(3).unwrap(), 3).is_err());
        assert!(ProgramRecorder::new(PartyId::new(0).unwrap(), 1).is_err());
    }
}
