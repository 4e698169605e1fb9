//! Distributed garbling of a Boolean circuit from lookup tables (seed §6.2, Figures 11–12,
//! Table 1), with the key-homomorphic private-key BGV of [`crate::keyhom`].
//!
//! **Preprocessing ([`garble`], Figure 11).**
//! 1. Every party samples its XOR share λ^i_w of each wire's mask and, for each wire, two
//!    ternary key shares k^i_{w,0}, k^i_{w,1} ∈ {−1, 0, 1}^L whose first coefficient is 0,
//!    except party 0's k^0_{w,1}[0] = 1 (step 1). NOT and copy gates cost nothing: the output
//!    wire shares the input's keys, with λ flipped by party 0 for NOT.
//! 2. For every AND gate λ_u·λ_v is computed on XOR shares (GMW with Boolean triples of
//!    [`BooleanEngine`]), and every party computes its shares of
//!    e_{w,α,β} = ((λ_u ⊕ α) ∧ (λ_v ⊕ β)) ⊕ λ_w (XOR gates: λ_u ⊕ λ_v ⊕ α ⊕ β ⊕ λ_w) (step 2).
//! 3. The private table T = (k_{w,0}, k_{w,1}) (additive shares mod p: every party's ternary
//!    shares) is masked coefficient by coefficient ([`ThresholdKeys::masked_tables`],
//!    Figure 6, each coefficient one slot) and looked up at e_{w,α,β} (Figure 8, opening
//!    e ⊕ r slot-wise), giving additive shares of k_{w,e_{w,α,β}} (step 3(b)). An AND gate
//!    takes four lookups of L slots; an XOR gate one, since e_{w,0,1} = e_{w,0,0} ⊕ 1: the
//!    other entry of the same masked table at u ⊕ 1 (step 3(c), slot-wise).
//! 4. Every party encrypts its share of row (α, β) under its key share
//!    k^i_{u,α} + k^i_{v,β} with the label (g, α, β); the ciphertexts are summed along the
//!    chain into the evaluator, party 0 (step 4: by key homomorphism the sum is the row of
//!    Table 1 under k_{u,α} + k_{v,β}).
//!
//! Per gate every party sends and receives a constant number of ciphertexts: two table
//! ciphertexts' worth of slots per lookup in the chain of Figure 6 (plus its refreshes,
//! see [`crate::lut`]) and four row ciphertexts; the Boolean triples of step 2 come from
//! pairwise OT (15 bytes per peer per AND gate, linear in n but three orders of magnitude
//! below the rest; the seed makes them with threshold HE).
//!
//! **Online ([`GarbledCircuit::evaluate`], Figure 12).** The masked values e_w = x_w ⊕ λ_w of
//! the input wires (and of constant wires) are opened, every party's key share k^i_{w,e_w}
//! is summed along the chain into party 0 (step 7), which evaluates gate by gate (step 8):
//! it decrypts row (e_u, e_v) with k_{u,e_u} + k_{v,e_v}, lifts the result centered (exact,
//! see `docs/mixed-mode.md`) and reads e_w = k_w[0]. Output shares: party 0 holds
//! e_w ⊕ λ^0_w, every other party λ^i_w (step 9).

use fhe_math::rq::Poly;
use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_circuit::{Circuit, GateKind};
use mixgc_net::Tag;
use mixgc_nparty::Mesh;

use fhe::bfv::Ciphertext;
use fhe_math::rq::Representation;

use crate::a2b::BooleanEngine;
use crate::b2a::b2a;
use crate::chain::{pass_from_root, sum_to_root};
use crate::keygen::{malformed, recv_poly};
use crate::keyhom::KeyHomParams;
use crate::lut::{open_bits, Tables};
use crate::ops::{mul_plain, recv_ciphertext};
use crate::wire::encode_ciphertext;
use crate::{MixedError, ThresholdKeys, DEGREE, PLAINTEXT_MODULUS as P};

/// How step 3 of Figure 11 turns the index e_{w,α,β} into shares of k_{w,e}: both realize
/// the private size-2 table lookup T[e] of the seed's F_LUT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySelection {
    /// Figure 11 as written: masked private tables ([`ThresholdKeys::masked_tables`]: the
    /// XOR sum and a butterfly where they fit, n ≤ 32, [`crate::tree_tables`]; else the
    /// table chain of Figure 6 with its refreshes, [`crate::lut`]) and the online lookup of
    /// Figure 8, coefficient by coefficient.
    MaskedTables,
    /// T[e] = T[0] + e·(T[1] − T[0]): e is converted to additive shares by B2A (a public
    /// size-2 table lookup, seed §5.1, one slot per row), encrypted (A2E) in every slot of
    /// the row's L coefficients, multiplied by every party's own share of
    /// D = k_{w,1} − k_{w,0} (a plaintext product), the products summed along the chain and
    /// turned back into shares (E2A, flooded). No permutation chain, hence no refresh: each
    /// party sends and receives about four ciphertexts' worth of slots per row whatever n
    /// (the B2A of the index bit, one slot per row, is the only part that grows).
    Products,
}

/// The party that evaluates the garbled circuit (the seed's P_1).
pub const EVALUATOR: usize = 0;

/// Gates per row aggregation message along the chain (bounds a frame to 128 ciphertexts).
const GATES_PER_MESSAGE: usize = 32;

/// One party's two key shares of a wire (value 0, value 1), ternary.
type KeyPair = [Vec<i8>; 2];

/// This party's part of a distributed garbled circuit: its mask shares and key shares of
/// every wire and, at the evaluator, the garbled rows (Table 1) of every AND and XOR gate.
#[derive(Debug)]
pub struct GarbledCircuit {
    circuit: Circuit,
    params: KeyHomParams,
    session: [u8; 32],
    me: usize,
    parties: usize,
    /// λ^i_w per wire.
    lam: Vec<u8>,
    /// Per wire, its key pair in `pairs` (NOT and copy gates share their input's).
    pair_of: Vec<u32>,
    pairs: Vec<KeyPair>,
    /// The wires whose masked value is opened online: the inputs, then constant wires.
    public: Vec<PublicWire>,
    /// At the evaluator: the four rows of each AND/XOR gate, in gate order.
    rows: Option<Vec<[Poly; 4]>>,
}

/// A wire opened online: a circuit input (its bit index) or a constant.
#[derive(Clone, Copy, Debug)]
enum PublicWire {
    Input(u32),
    Const { wire: u32, value: u8 },
}

impl PublicWire {
    fn wire(self) -> u32 {
        match self {
            PublicWire::Input(w) => w,
            PublicWire::Const { wire, .. } => wire,
        }
    }
}

/// The label of row (α, β) = (r >> 1, r & 1) of gate `g`.
fn label(g: usize, r: usize) -> [u8; 9] {
    let mut t = [0u8; 9];
    t[..8].copy_from_slice(&(g as u64).to_le_bytes());
    t[8] = r as u8;
    t
}

/// A fresh key pair of party `me` (Figure 11 step 1).
fn fresh_pair<R: RngCore + CryptoRng>(l: usize, me: usize, rng: &mut R) -> KeyPair {
    let mut pair: KeyPair = [0, 1].map(|_| (0..l).map(|_| rng.random_range(-1i8..=1)).collect());
    pair[0][0] = 0;
    pair[1][0] = i8::from(me == 0);
    pair
}

/// A ternary share as a value mod p.
fn mod_p(x: i8) -> u64 {
    (i64::from(x)).rem_euclid(P as i64) as u64
}

/// The centered lift of a value mod p to (−p/2, p/2].
fn centered(x: u64) -> i64 {
    if x > P / 2 {
        x as i64 - P as i64
    } else {
        x as i64
    }
}

/// The lookups of one garbled gate: (its index among garbled gates, the row(s) it serves).
struct Lookup {
    gate: usize,
    /// The rows that get T[u] (and, for XOR gates, the rows that get T[u ⊕ 1]).
    direct: &'static [usize],
    complement: &'static [usize],
    /// This party's XOR share of the index.
    index: u8,
}

/// Garbles `circuit` among all parties of `mesh` (every party calls it at once with the same
/// circuit, parameters and a fresh `session`, the same everywhere): Figure 11.
// The arguments are the session's state (keys, engine, mesh, RNG) and the garbling's inputs.
#[allow(clippy::too_many_arguments)]
pub fn garble<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    circuit: &Circuit,
    params: &KeyHomParams,
    session: &[u8; 32],
    selection: KeySelection,
    rng: &mut R,
) -> Result<GarbledCircuit, MixedError> {
    circuit
        .validate()
        .map_err(|e| MixedError::Usage(format!("the circuit to garble: {e}")))?;
    let (me, n, l) = (mesh.me(), mesh.parties(), params.degree());
    if n > params.max_parties() {
        return Err(MixedError::Usage(format!(
            "{n} parties: the key ring's modulus allows at most {}",
            params.max_parties()
        )));
    }
    let nw = circuit.num_wires as usize;
    let mut lam = vec![0u8; nw];
    let mut pair_of = vec![u32::MAX; nw];
    let mut pairs: Vec<KeyPair> = Vec::new();
    let mut public = Vec::new();
    let mut new_wire = |w: usize, lam: &mut Vec<u8>, pair_of: &mut Vec<u32>, rng: &mut R| {
        lam[w] = rng.random_range(0..2);
        pair_of[w] = pairs.len() as u32;
        pairs.push(fresh_pair(l, me, rng));
    };
    for w in 0..circuit.total_input_bits() {
        new_wire(w as usize, &mut lam, &mut pair_of, rng);
        public.push(PublicWire::Input(w));
    }
    let mut garbled = Vec::new();
    for g in 0..circuit.num_gates() {
        let (a, out) = (circuit.a[g] as usize, circuit.out[g] as usize);
        match circuit.kind[g] {
            GateKind::And | GateKind::Xor => {
                new_wire(out, &mut lam, &mut pair_of, rng);
                garbled.push(g);
            }
            GateKind::Not | GateKind::Copy => {
                let flip = circuit.kind[g] == GateKind::Not && me == 0;
                lam[out] = lam[a] ^ u8::from(flip);
                pair_of[out] = pair_of[a];
            }
            GateKind::Const => {
                new_wire(out, &mut lam, &mut pair_of, rng);
                public.push(PublicWire::Const {
                    wire: out as u32,
                    value: u8::from(circuit.a[g] == 1),
                });
            }
        }
    }

    // Step 2: λ_u·λ_v for the AND gates, then the shares of e_{w,α,β}.
    mesh.set_phase("distributed garbling: λ_u·λ_v");
    let ands: Vec<usize> = garbled
        .iter()
        .copied()
        .filter(|&g| circuit.kind[g] == GateKind::And)
        .collect();
    let xs: Vec<u8> = ands.iter().map(|&g| lam[circuit.a[g] as usize]).collect();
    let ys: Vec<u8> = ands.iter().map(|&g| lam[circuit.b[g] as usize]).collect();
    let mut products = engine.and(mesh, &xs, &ys)?.into_iter();
    let first = u8::from(me == 0);
    let mut lookups = Vec::new();
    for (gi, &g) in garbled.iter().enumerate() {
        let (lu, lv, lw) = (
            lam[circuit.a[g] as usize],
            lam[circuit.b[g] as usize],
            lam[circuit.out[g] as usize],
        );
        if circuit.kind[g] == GateKind::And {
            let uv = products
                .next()
                .ok_or_else(|| MixedError::Usage("internal: fewer AND products than AND gates".into()))?;
            for (r, direct) in [&[0usize][..], &[1], &[2], &[3]].into_iter().enumerate() {
                let (alpha, beta) = ((r >> 1) as u8, (r & 1) as u8);
                let index = uv ^ (alpha & lv) ^ (beta & lu) ^ lw ^ (alpha & beta & first);
                lookups.push(Lookup {
                    gate: gi,
                    direct,
                    complement: &[],
                    index,
                });
            }
        } else {
            lookups.push(Lookup {
                gate: gi,
                direct: &[0, 3],
                complement: &[1, 2],
                index: lu ^ lv ^ lw,
            });
        }
    }

    // With products, the index bits of every lookup are converted to additive shares first
    // (B2A, batched over N bits).
    let arith = match selection {
        KeySelection::Products => {
            let bits: Vec<u64> = lookups.iter().map(|lk| u64::from(lk.index)).collect();
            b2a(keys, mesh, &bits, 1, rng)?
        }
        KeySelection::MaskedTables => Vec::new(),
    };

    // Steps 3 and 4, batch by batch: the lookups of whole gates fill at most N slots.
    let evaluator = me == EVALUATOR;
    let mut rows: Vec<[Poly; 4]> = Vec::new();
    let mut start = 0;
    while start < lookups.len() {
        let mut end = start;
        while end < lookups.len() && (end + 1 - start) * l <= DEGREE {
            end += 1;
        }
        // Never split a gate's lookups across batches.
        while end < lookups.len() && end > start && lookups[end].gate == lookups[end - 1].gate {
            end -= 1;
        }
        if end == start {
            return Err(MixedError::Usage(format!(
                "a key ring of degree {l}: one gate's lookups need more than {DEGREE} slots"
            )));
        }
        let batch = &lookups[start..end];
        let tables = KeyTables {
            pairs: &pairs,
            pair_of: &pair_of,
            circuit,
            garbled: &garbled,
            l,
        };
        let messages = match selection {
            KeySelection::MaskedTables => tables.lookup_keys(keys, mesh, batch, rng)?,
            KeySelection::Products => tables.select_keys(keys, mesh, batch, &arith[start..end], rng)?,
        };
        let first_gate = batch[0].gate;
        let gates = batch[batch.len() - 1].gate + 1 - first_gate;
        mesh.set_phase("distributed garbling: the garbled rows");
        for chunk in (0..gates).collect::<Vec<_>>().chunks(GATES_PER_MESSAGE) {
            let mut cts = Vec::with_capacity(4 * chunk.len());
            for &j in chunk {
                let g = garbled[first_gate + j];
                let (ku, kv) = (
                    &pairs[pair_of[circuit.a[g] as usize] as usize],
                    &pairs[pair_of[circuit.b[g] as usize] as usize],
                );
                for (r, message) in messages[j].iter().enumerate() {
                    let key: Vec<i64> = ku[r >> 1]
                        .iter()
                        .zip(&kv[r & 1])
                        .map(|(&x, &y)| i64::from(x) + i64::from(y))
                        .collect();
                    let a = params.label_poly(session, &label(g, r));
                    cts.push(params.encrypt(&a, &key, message, rng)?);
                }
            }
            if let Some(sum) = sum_rows_to_evaluator(mesh, params, cts)? {
                if !evaluator {
                    return Err(MixedError::Usage(
                        "internal: rows summed into a non-evaluator".into(),
                    ));
                }
                let mut it = sum.into_iter();
                for _ in chunk {
                    let row: Vec<Poly> = it.by_ref().take(4).collect();
                    let row: [Poly; 4] = row
                        .try_into()
                        .map_err(|_| MixedError::Usage("internal: a gate with fewer than 4 rows".into()))?;
                    rows.push(row);
                }
            }
        }
        start = end;
    }
    Ok(GarbledCircuit {
        circuit: circuit.clone(),
        params: params.clone(),
        session: *session,
        me,
        parties: n,
        lam,
        pair_of,
        pairs,
        public,
        rows: evaluator.then_some(rows),
    })
}

/// This party's key shares, seen as the private tables (k_{w,0}, k_{w,1}) of the lookups.
struct KeyTables<'a> {
    pairs: &'a [KeyPair],
    pair_of: &'a [u32],
    circuit: &'a Circuit,
    garbled: &'a [usize],
    l: usize,
}

impl KeyTables<'_> {
    /// The key pair of the output wire of the gate of `lk`.
    fn pair(&self, lk: &Lookup) -> &KeyPair {
        &self.pairs[self.pair_of[self.circuit.out[self.garbled[lk.gate]] as usize] as usize]
    }

    /// Per gate of `batch` (from its first), this party's shares of the four row messages:
    /// rows in `direct` get `pick(j, 0)`, rows in `complement` `pick(j, 1)` (the share of
    /// T[e] and of T[1 − e] for lookup j).
    fn rows(&self, batch: &[Lookup], pick: impl Fn(usize, u8) -> Vec<u64>) -> Vec<[Vec<u64>; 4]> {
        let first_gate = batch[0].gate;
        let gates = batch[batch.len() - 1].gate + 1 - first_gate;
        let mut out: Vec<[Vec<u64>; 4]> = (0..gates).map(|_| Default::default()).collect();
        for (j, lk) in batch.iter().enumerate() {
            let rows = &mut out[lk.gate - first_gate];
            for &r in lk.direct {
                rows[r] = pick(j, 0);
            }
            for &r in lk.complement {
                rows[r] = pick(j, 1);
            }
        }
        out
    }

    /// Step 3 by masked tables ([`KeySelection::MaskedTables`]): masks the private tables
    /// slot by slot (one slot per key coefficient), opens index ⊕ r slot-wise and picks the
    /// entries.
    fn lookup_keys<R: RngCore + CryptoRng>(
        &self,
        keys: &ThresholdKeys,
        mesh: &mut Mesh,
        batch: &[Lookup],
        rng: &mut R,
    ) -> Result<Vec<[Vec<u64>; 4]>, MixedError> {
        let l = self.l;
        let mut columns = [
            Vec::with_capacity(batch.len() * l),
            Vec::with_capacity(batch.len() * l),
        ];
        for lk in batch {
            for (column, share) in columns.iter_mut().zip(self.pair(lk)) {
                column.extend(share.iter().map(|&x| mod_p(x)));
            }
        }
        mesh.set_phase("distributed garbling: masked key tables");
        let entries: [&[u64]; 2] = [&columns[0], &columns[1]];
        let masked = keys.masked_tables(
            mesh,
            Tables::Private {
                entry_shares: &entries,
            },
            rng,
        )?;
        mesh.set_phase("distributed garbling: key lookups");
        let mine: Vec<u8> = batch
            .iter()
            .enumerate()
            .flat_map(|(j, lk)| {
                let mask = &masked.mask_share()[j * l..(j + 1) * l];
                mask.iter().map(move |&r| r ^ lk.index)
            })
            .collect();
        let opened = open_bits(mesh, mine)?;
        let shares = masked.entry_shares();
        Ok(self.rows(batch, |j, flip| {
            (j * l..(j + 1) * l)
                .map(|s| shares[usize::from(opened[s] ^ flip)][s])
                .collect()
        }))
    }

    /// Step 3 by products ([`KeySelection::Products`]), `arith` this party's additive
    /// shares of the batch's index bits: Enc(e) in the L slots of each lookup (A2E), times
    /// this party's D_i = k^i_1 − k^i_0, summed along the chain into party 0, then E2A; the
    /// share of T[e] is k^i_0 + (e·D)_i, of T[1 − e] k^i_1 − (e·D)_i.
    fn select_keys<R: RngCore + CryptoRng>(
        &self,
        keys: &ThresholdKeys,
        mesh: &mut Mesh,
        batch: &[Lookup],
        arith: &[u64],
        rng: &mut R,
    ) -> Result<Vec<[Vec<u64>; 4]>, MixedError> {
        let l = self.l;
        let par = keys.parameters().clone();
        mesh.set_phase("distributed garbling: the index bits encrypted");
        let spread: Vec<u64> = arith.iter().flat_map(|&e| std::iter::repeat_n(e, l)).collect();
        let enc_e = keys.from_shares(mesh, &spread, rng)?;
        let diff: Vec<u64> = batch
            .iter()
            .flat_map(|lk| {
                let [k0, k1] = self.pair(lk);
                k0.iter().zip(k1).map(|(&a, &b)| mod_p(b - a))
            })
            .collect();
        let mine = mul_plain(&par, &enc_e, &diff)?;
        mesh.set_phase("distributed garbling: e·D summed");
        let recv = |mesh: &mut Mesh, from: usize| recv_ciphertext(mesh, from, &par);
        let encode = |ct: &Ciphertext| encode_ciphertext(ct).map_err(MixedError::Usage);
        let sum = sum_to_root(mesh, 0, mine, recv, |a, b| &a + b, encode)?;
        // E2A needs c1 everywhere (for the decryption shares) and c0 at party 0 only.
        let (c0, c1) = match sum {
            Some(ct) => (Some(ct[0].clone()), Some(ct[1].clone())),
            None => (None, None),
        };
        let c1 = pass_from_root(
            mesh,
            0,
            c1,
            |mesh, from| recv_poly(mesh, from, &par, "e·D ciphertext"),
            |p| Ok(fhe_traits::Serialize::to_bytes(p)),
        )?;
        let ctx = par.context_at_level(0)?;
        let c0 = c0.unwrap_or_else(|| Poly::zero(ctx, Representation::Ntt));
        let ed = keys.to_shares(mesh, &Ciphertext::new(vec![c0, c1], &par)?, rng)?;
        Ok(self.rows(batch, |j, flip| {
            let [k0, k1] = self.pair(&batch[j]);
            (0..l)
                .map(|c| {
                    let x = ed[j * l + c];
                    if flip == 0 {
                        (mod_p(k0[c]) + x) % P
                    } else {
                        (mod_p(k1[c]) + P - x) % P
                    }
                })
                .collect()
        }))
    }
}

/// Sums every party's row ciphertexts `cts` along the chain into the evaluator (Figure 11
/// step 4(b), chain-aggregated so that each party sends and receives one message).
fn sum_rows_to_evaluator(
    mesh: &mut Mesh,
    params: &KeyHomParams,
    cts: Vec<Poly>,
) -> Result<Option<Vec<Poly>>, MixedError> {
    let count = cts.len();
    let size = params.ciphertext_bytes();
    let recv = |mesh: &mut Mesh, from: usize| -> Result<Vec<Poly>, MixedError> {
        let bytes = mesh.recv(from, Tag::Openings, count * size)?;
        if bytes.len() != count * size {
            return Err(malformed(
                mesh,
                from,
                "garbled rows",
                format!("{} bytes, not {count} ciphertexts of {size}", bytes.len()),
            ));
        }
        bytes
            .chunks_exact(size)
            .map(|c| params.decode(c))
            .collect::<Result<_, _>>()
            .map_err(|why| malformed(mesh, from, "garbled rows", why))
    };
    let add = |mut x: Vec<Poly>, y: &Vec<Poly>| {
        x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
        x
    };
    let encode = |x: &Vec<Poly>| Ok(x.iter().flat_map(|c| params.encode(c)).collect());
    sum_to_root(mesh, EVALUATOR, cts, recv, add, encode)
}

/// A circuit of `k` independent AND gates: inputs x and y of k bits, output x ∧ y bitwise
/// (what `mixgc bench --mixed` garbles for its `garble_and` records).
pub fn and_layer(k: usize) -> Result<Circuit, MixedError> {
    let mut text = format!("{k} {}\n2 {k} {k}\n1 {k}\n\n", 3 * k);
    for j in 0..k {
        text += &format!("2 1 {j} {} {} AND\n", k + j, 2 * k + j);
    }
    mixgc_circuit::bristol::parse(&text, "and_layer")
        .map_err(|e| MixedError::Usage(format!("an AND layer of {k} gates: {e}")))
}

impl GarbledCircuit {
    /// The number of AND and XOR gates, each garbled into four rows.
    pub fn garbled_gates(&self) -> usize {
        self.circuit
            .kind
            .iter()
            .filter(|k| matches!(k, GateKind::And | GateKind::Xor))
            .count()
    }

    /// Evaluates the garbled circuit on this party's XOR shares of the input bits (one 0/1
    /// per input wire, circuit order): Figure 12. Every party calls it at once; each gets
    /// its XOR shares of the output bits (the evaluator, party 0, did the evaluation).
    pub fn evaluate(&self, mesh: &mut Mesh, input_shares: &[u8]) -> Result<Vec<u8>, MixedError> {
        let inputs = self.circuit.total_input_bits() as usize;
        if input_shares.len() != inputs {
            return Err(MixedError::Usage(format!(
                "{} input shares for a circuit of {inputs} input bits",
                input_shares.len()
            )));
        }
        if let Some(j) = input_shares.iter().position(|&x| x > 1) {
            return Err(MixedError::Usage(format!(
                "input share {j} is {}, not a bit",
                input_shares[j]
            )));
        }
        // Step 6: open e_w = x_w ⊕ λ_w for the public wires.
        mesh.set_phase("garbled evaluation: opening the masked inputs");
        let first = u8::from(self.me == 0);
        let mine: Vec<u8> = self
            .public
            .iter()
            .map(|&p| match p {
                PublicWire::Input(w) => input_shares[w as usize] ^ self.lam[w as usize],
                PublicWire::Const { wire, value } => (value & first) ^ self.lam[wire as usize],
            })
            .collect();
        let opened = open_bits(mesh, mine)?;
        // Step 7: the key shares k^i_{w,e_w}, summed along the chain into the evaluator.
        mesh.set_phase("garbled evaluation: the input keys");
        let l = self.params.degree();
        let shares: Vec<u64> = self
            .public
            .iter()
            .zip(&opened)
            .flat_map(|(&p, &e)| {
                self.pairs[self.pair_of[p.wire() as usize] as usize][usize::from(e)]
                    .iter()
                    .map(|&x| mod_p(x))
            })
            .collect();
        let total = self.sum_keys_to_evaluator(mesh, shares)?;
        let Some(total) = total else {
            // Step 9 at the other parties: their output shares are their mask shares.
            return Ok(self
                .circuit
                .output_wires
                .iter()
                .map(|&w| self.lam[w as usize])
                .collect());
        };
        mesh.set_phase("garbled evaluation");
        let keys = self.evaluate_gates(&total, l)?;
        Ok(self
            .circuit
            .output_wires
            .iter()
            .map(|&w| {
                let e = keys[w as usize].as_ref().map_or(0, |k| k[0] as u8);
                e ^ self.lam[w as usize]
            })
            .collect())
    }

    /// Step 8 at the evaluator: the key of every wire from the public wires' keys (`total`,
    /// their sums mod p, L per public wire), gate by gate.
    fn evaluate_gates(&self, total: &[u64], l: usize) -> Result<Vec<Option<Vec<i64>>>, MixedError> {
        let rows = self
            .rows
            .as_ref()
            .ok_or_else(|| MixedError::Usage("only the evaluator holds the garbled rows".into()))?;
        let c = &self.circuit;
        let mut keys: Vec<Option<Vec<i64>>> = vec![None; c.num_wires as usize];
        for (p, key) in self.public.iter().zip(total.chunks_exact(l)) {
            keys[p.wire() as usize] = Some(key.iter().map(|&x| centered(x)).collect());
        }
        let bound = self.parties as i64;
        let key_of = |keys: &[Option<Vec<i64>>], w: u32| {
            keys[w as usize]
                .clone()
                .ok_or_else(|| MixedError::Usage(format!("internal: wire {w} has no key yet")))
        };
        let mut garbled = 0;
        for g in 0..c.num_gates() {
            let out = c.out[g] as usize;
            match c.kind[g] {
                GateKind::And | GateKind::Xor => {
                    let (ku, kv) = (key_of(&keys, c.a[g])?, key_of(&keys, c.b[g])?);
                    let r = 2 * ku[0] as usize + kv[0] as usize;
                    let key: Vec<i64> = ku.iter().zip(&kv).map(|(x, y)| x + y).collect();
                    let a = self.params.label_poly(&self.session, &label(g, r));
                    let m = self.params.decrypt(&a, &key, &rows[garbled][r])?;
                    let kw: Vec<i64> = m.into_iter().map(centered).collect();
                    if !(0..=1).contains(&kw[0]) || kw.iter().any(|x| x.abs() > bound) {
                        return Err(MixedError::Usage(format!(
                            "the garbled row ({}, {}) of gate {g} did not decrypt to a wire key \
                             (a party's shares were wrong)",
                            r >> 1,
                            r & 1
                        )));
                    }
                    keys[out] = Some(kw);
                    garbled += 1;
                }
                GateKind::Not | GateKind::Copy => keys[out] = Some(key_of(&keys, c.a[g])?),
                GateKind::Const => {}
            }
        }
        Ok(keys)
    }

    /// Sums the parties' key shares (values mod p) along the chain into the evaluator.
    fn sum_keys_to_evaluator(
        &self,
        mesh: &mut Mesh,
        shares: Vec<u64>,
    ) -> Result<Option<Vec<u64>>, MixedError> {
        let count = shares.len();
        let recv = |mesh: &mut Mesh, from: usize| -> Result<Vec<u64>, MixedError> {
            let bytes = mesh.recv_exact(from, Tag::Openings, 4 * count)?;
            let values: Vec<u64> = bytes
                .chunks_exact(4)
                .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect();
            if let Some(j) = values.iter().position(|&v| v >= P) {
                return Err(malformed(
                    mesh,
                    from,
                    "input key shares",
                    format!("value {j} is {}, not below p", values[j]),
                ));
            }
            Ok(values)
        };
        let add = |mut x: Vec<u64>, y: &Vec<u64>| {
            x.iter_mut().zip(y).for_each(|(a, b)| *a = (*a + b) % P);
            x
        };
        let encode = |x: &Vec<u64>| Ok(x.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect());
        sum_to_root(mesh, EVALUATOR, shares, recv, add, encode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fhe_rand::SeedableRng;
    use fhe_rand_chacha::ChaCha20Rng;
    use mixgc_nparty::memory_mesh;

    #[test]
    fn a_malformed_row_message_names_its_sender() {
        let params = KeyHomParams::with_degree(16).unwrap();
        let got: Vec<Option<MixedError>> = std::thread::scope(|s| {
            let handles: Vec<_> = memory_mesh(3)
                .into_iter()
                .map(|mut mesh| {
                    let params = params.clone();
                    s.spawn(move || {
                        let mut rng = ChaCha20Rng::seed_from_u64(mesh.me() as u64);
                        let a = params.label_poly(&[1; 32], b"row");
                        let ct = params.encrypt(&a, &[0; 16], &[5; 16], &mut rng).unwrap();
                        if mesh.me() == 1 {
                            // Party 1 relays a coefficient at q to the evaluator.
                            mesh.recv(2, Tag::Openings, 1 << 20).unwrap();
                            let mut bytes = params.encode(&ct);
                            bytes[..7].copy_from_slice(&crate::keyhom::KEY_MODULUS.to_le_bytes()[..7]);
                            mesh.send(0, Tag::Openings, &bytes).unwrap();
                            mesh.flush().unwrap();
                            return None;
                        }
                        sum_rows_to_evaluator(&mut mesh, &params, vec![ct]).err()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let e = got[0].as_ref().expect("the evaluator refuses the rows");
        assert_eq!(e.party(), Some(1));
        assert!(
            e.to_string()
                .starts_with("party 1 sent a malformed garbled rows: coefficient 0"),
            "{e}"
        );
    }

    #[test]
    fn lifts_are_centered() {
        assert_eq!(centered(mod_p(-1)), -1);
        assert_eq!(centered(mod_p(1)), 1);
        assert_eq!(centered(P / 2), (P / 2) as i64);
        assert_eq!(centered(P / 2 + 1), (P / 2 + 1) as i64 - P as i64);
    }
}
