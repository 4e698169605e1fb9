//! Choosing each conv/dense layer's arithmetic (ABLE §5.2's question, per layer): the
//! network is counted on [`Counter`] once all-Boolean and once all-CRT, and each layer's
//! bytes (garbled tables, inputs, OT, outputs) and ANDs are read after it. Every layer takes
//! bits in and gives bits out in both arithmetics (the conversions, BD, are inside a CRT
//! layer's count), so the layers' choices are independent: each takes the arithmetic with
//! the smaller predicted time ([`UnitTimes`]), as ABLE's planner predicts time from
//! calibrated unit costs rather than from table size (a CRT row costs more to garble and
//! evaluate than an AND's, so fewer bytes can be slower).

use crate::{Counter, Ctx};

use super::model::{Arch, CnnError};
use super::secure::{infer, Arith, Reveal};

/// How the whole network is garbled (`mixgc infer --realization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realization {
    /// Every layer in Boolean.
    Boolean,
    /// Every conv/dense layer in CRT arithmetic, ReLU/pool/argmax in Boolean.
    Mixed,
    /// Per layer, the faster of the two by the cost counter and [`UnitTimes`].
    Planned,
}

impl Realization {
    pub const ALL: [Realization; 3] = [Realization::Boolean, Realization::Mixed, Realization::Planned];

    pub fn name(self) -> &'static str {
        match self {
            Realization::Boolean => "boolean",
            Realization::Mixed => "mixed",
            Realization::Planned => "planned",
        }
    }

    pub fn parse(s: &str) -> Option<Realization> {
        Realization::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// One conv/dense layer's bytes and ANDs in each arithmetic (the pooling before it
/// included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerCost {
    pub boolean_bytes: u64,
    pub crt_bytes: u64,
    pub boolean_ands: u64,
    pub crt_ands: u64,
}

impl LayerCost {
    /// Predicted seconds in Boolean and in CRT arithmetic.
    pub fn seconds(&self, t: &UnitTimes) -> (f64, f64) {
        (
            t.seconds(Arith::Boolean, self.boolean_bytes, self.boolean_ands),
            t.seconds(Arith::Crt, self.crt_bytes, self.crt_ands),
        )
    }

    /// Predicted seconds in `arith`.
    pub fn seconds_in(&self, arith: Arith, t: &UnitTimes) -> f64 {
        let (boolean, crt) = self.seconds(t);
        match arith {
            Arith::Boolean => boolean,
            Arith::Crt => crt,
        }
    }
}

/// The time model of the planner: each AND (its 32 table bytes included) costs a fixed
/// time, and so does each other byte, at one rate in a Boolean layer (its rows are the
/// garbler-private half gates of the products, hashed in batches) and another in a CRT
/// layer (rows mod p: projections of bits into Z_p and the bit decomposition's), for
/// garbling, transfer and evaluation together; a link of `link_bytes_per_second` bounds the
/// transfer. The defaults were fitted on this repository's two-core machine to the
/// end-to-end LeNet-5 runs of `docs/inference.md` (two processes over loopback, the
/// machine loaded by other builds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitTimes {
    pub and_ns: f64,
    pub boolean_byte_ns: f64,
    pub crt_byte_ns: f64,
    pub link_bytes_per_second: Option<f64>,
}

impl Default for UnitTimes {
    fn default() -> Self {
        // All-Boolean: 4.31 M ANDs and 206 MB in all in 5.5 s, with a private-projection
        // row costing what an AND's does per byte (both are half gates: two hashes per
        // row at the garbler, one at the evaluator); all-CRT: 0.33 M ANDs and 110 MB of
        // rows mod p in about 45 s.
        let and_ns = 850.0;
        UnitTimes {
            and_ns,
            boolean_byte_ns: and_ns / 32.0,
            crt_byte_ns: 400.0,
            link_bytes_per_second: None,
        }
    }
}

impl UnitTimes {
    /// Predicted seconds for `bytes` in all, of which `ands`·32 are AND tables, in a layer
    /// of `arith`.
    pub fn seconds(&self, arith: Arith, bytes: u64, ands: u64) -> f64 {
        let other = bytes.saturating_sub(32 * ands) as f64;
        let byte_ns = match arith {
            Arith::Boolean => self.boolean_byte_ns,
            Arith::Crt => self.crt_byte_ns,
        };
        let compute = (ands as f64 * self.and_ns + other * byte_ns) * 1e-9;
        let transfer = self.link_bytes_per_second.map_or(0.0, |r| bytes as f64 / r);
        compute.max(transfer)
    }

    /// Predicted seconds of the conv/dense layers of a network with these `costs` under
    /// `plan`.
    pub fn plan_seconds(&self, costs: &[LayerCost], plan: &[Arith]) -> f64 {
        costs.iter().zip(plan).map(|(c, &a)| c.seconds_in(a, self)).sum()
    }
}

/// Counts the network under `plan`; the total cost, and the cumulative bytes and ANDs after
/// each conv/dense layer.
pub fn count(
    arch: &Arch,
    plan: &[Arith],
    reveal: Reveal,
) -> Result<(crate::Cost, Vec<(u64, u64)>), CnnError> {
    let ctx = Ctx::new(Counter::default());
    let mut marks = Vec::new();
    infer(&ctx, arch, plan, None, None, reveal, |_| {
        let c = ctx.with(|c| c.cost());
        marks.push((c.total_bytes(), c.ands));
    })?;
    let cost = ctx.with(|c| c.cost());
    Ok((cost, marks))
}

/// Each conv/dense layer's cost in both arithmetics.
pub fn layer_costs(arch: &Arch) -> Result<Vec<LayerCost>, CnnError> {
    let n = arch.linear().count();
    let per_layer = |marks: Vec<(u64, u64)>| -> Vec<(u64, u64)> {
        let mut prev = (0, 0);
        marks
            .into_iter()
            .map(|m| {
                let d = (m.0 - prev.0, m.1 - prev.1);
                prev = m;
                d
            })
            .collect()
    };
    let boolean = per_layer(count(arch, &vec![Arith::Boolean; n], Reveal::Class)?.1);
    let crt = per_layer(count(arch, &vec![Arith::Crt; n], Reveal::Class)?.1);
    Ok(boolean
        .into_iter()
        .zip(crt)
        .map(|(b, c)| LayerCost {
            boolean_bytes: b.0,
            crt_bytes: c.0,
            boolean_ands: b.1,
            crt_ands: c.1,
        })
        .collect())
}

/// The arithmetic of each conv/dense layer under `realization`.
pub fn plan(arch: &Arch, realization: Realization) -> Result<Vec<Arith>, CnnError> {
    let n = arch.linear().count();
    Ok(match realization {
        Realization::Boolean => vec![Arith::Boolean; n],
        Realization::Mixed => vec![Arith::Crt; n],
        Realization::Planned => {
            let times = UnitTimes::default();
            layer_costs(arch)?
                .into_iter()
                .map(|c| {
                    let (boolean, crt) = c.seconds(&times);
                    if crt < boolean {
                        Arith::Crt
                    } else {
                        Arith::Boolean
                    }
                })
                .collect()
        }
    })
}

/// A plan as `crt,crt,boolean,…` (what both parties compare in the handshake).
pub fn plan_name(plan: &[Arith]) -> String {
    plan.iter().map(|a| a.name()).collect::<Vec<_>>().join(",")
}
