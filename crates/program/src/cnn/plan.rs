//! Choosing each conv/dense layer's arithmetic (ABLE §5.2's question, per layer): the
//! network is counted on [`Counter`] once all-Boolean and once all-CRT, and each layer's
//! bytes (garbled tables, inputs, OT, outputs) are read after it. Every layer takes bits in
//! and gives bits out in both arithmetics (the conversions, BD, are inside a CRT layer's
//! count), so the layers' choices are independent and the cheaper of each is the plan.

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
    /// Per layer, the cheaper of the two by the cost counter.
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

/// One conv/dense layer's bytes in each arithmetic (the pooling before it included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerCost {
    pub boolean_bytes: u64,
    pub crt_bytes: u64,
    pub boolean_ands: u64,
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
        })
        .collect())
}

/// The arithmetic of each conv/dense layer under `realization`.
pub fn plan(arch: &Arch, realization: Realization) -> Result<Vec<Arith>, CnnError> {
    let n = arch.linear().count();
    Ok(match realization {
        Realization::Boolean => vec![Arith::Boolean; n],
        Realization::Mixed => vec![Arith::Crt; n],
        Realization::Planned => layer_costs(arch)?
            .into_iter()
            .map(|c| {
                if c.crt_bytes < c.boolean_bytes {
                    Arith::Crt
                } else {
                    Arith::Boolean
                }
            })
            .collect(),
    })
}

/// A plan as `crt,crt,boolean,…` (what both parties compare in the handshake).
pub fn plan_name(plan: &[Arith]) -> String {
    plan.iter().map(|a| a.name()).collect::<Vec<_>>().join(",")
}
