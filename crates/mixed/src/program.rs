//! The n-party backend of the mixed program interface (`mixgc_program::mixed`): each
//! primitive runs this crate's protocol among the mesh's parties over [`ThresholdKeys`]
//! (E form, E2A, A2E, arithmetic triples), [`BooleanEngine`] (GMW ANDs, A2B's adder) and
//! [`crate::lut`] (B2A), every vector in one batch.
//!
//! A values are this party's additive shares mod p, B values its XOR shares (one byte a
//! bit), E values the collective ciphertext, the same at every party, with its length, Y
//! values this party's Y wire handles ([`crate::yao`], BMR or distributed garbling, set up on
//! the first B→Y or Y constant).

use fhe::bfv::Ciphertext;
use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::bmr::BmrOptions;
use mixgc_nparty::Mesh;
use mixgc_program::mixed::{
    add_mod_p, bit_rows, check_lanes, check_lengths, check_mod_p, check_party, check_slots, check_terms,
    check_width, mul_public_mod_p, private_share, public_share, sub_mod_p, sum_chunks_mod_p, MixedBackend,
    MixedProgramError, Private, PrivateTerm, Recipient, Shaped, A2B_BITS,
};
use mixgc_program::PeerError;

use crate::a2b::{a2b, not, open_mod_p, open_mod_p_to, public_bits, xor, BooleanEngine};
use crate::b2a::b2a;
use crate::conversions::sum_ciphertexts;
use crate::lut::{open_bits, open_bits_to};
use crate::ops::{add, add_plain, mul_plain};
use crate::yao::{YaoEngine, YaoEnv, YaoState};
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

/// An E-form value: the collective ciphertext and how many of its slots the program uses.
#[derive(Clone, Debug)]
pub struct Packed {
    ct: Ciphertext,
    len: usize,
}

impl Packed {
    pub fn ciphertext(&self) -> &Ciphertext {
        &self.ct
    }
}

impl Shaped for Packed {
    fn lanes(&self) -> usize {
        self.len
    }
}

/// This party's side of a mixed program among the mesh's parties. Every party makes one
/// with its own keys, engine, mesh and RNG and runs the same program.
pub struct NpartyBackend<'a, R> {
    keys: &'a ThresholdKeys,
    engine: &'a mut BooleanEngine,
    mesh: &'a mut Mesh,
    rng: &'a mut R,
    /// The Y form's BMR state, made when first needed.
    yao: Option<YaoState>,
    /// ANDs at most per garbled batch of the Y form.
    yao_batch: usize,
    /// The protocol of the Y form.
    yao_engine: YaoEngine,
}

impl<R> std::fmt::Debug for NpartyBackend<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpartyBackend")
            .field("party", &self.mesh.me())
            .field("parties", &self.mesh.parties())
            .finish_non_exhaustive()
    }
}

impl<'a, R: RngCore + CryptoRng> NpartyBackend<'a, R> {
    /// The backend over keys from [`crate::keygen`] and an engine from
    /// [`BooleanEngine::setup`] on the same mesh.
    pub fn new(
        keys: &'a ThresholdKeys,
        engine: &'a mut BooleanEngine,
        mesh: &'a mut Mesh,
        rng: &'a mut R,
    ) -> Self {
        NpartyBackend {
            keys,
            engine,
            mesh,
            rng,
            yao: None,
            yao_batch: BmrOptions::default().batch_ands,
            yao_engine: YaoEngine::default(),
        }
    }

    /// The Y form on `engine` (default BMR); every party sets the same.
    pub fn with_yao_engine(mut self, engine: YaoEngine) -> Self {
        self.yao_engine = engine;
        self
    }

    /// At most `batch_ands` (≥ 1) ANDs per garbled batch of the Y form (default
    /// [`BmrOptions::batch_ands`]; the Lut engine caps it at
    /// [`crate::yao_lut::MAX_BATCH_ANDS`]); every party sets the same.
    pub fn with_yao_batch(mut self, batch_ands: usize) -> Self {
        self.yao_batch = batch_ands;
        self
    }

    /// The Y form's state, once a program used it.
    pub fn yao_state(&self) -> Option<&YaoState> {
        self.yao.as_ref()
    }

    /// `f` on the Y form's state (made now at its first use) and the mesh.
    fn with_yao<T>(
        &mut self,
        f: impl FnOnce(&mut YaoState, &mut YaoEnv) -> Result<T, MixedError>,
    ) -> Result<T, MixedProgramError> {
        if self.yao.is_none() {
            let state = YaoState::setup(self.mesh, self.rng, self.yao_batch, self.yao_engine);
            self.yao = Some(state.map_err(backend)?);
        }
        let state = self.yao.as_mut().expect("made above");
        let mut env = YaoEnv {
            mesh: self.mesh,
            keys: self.keys,
            engine: self.engine,
        };
        f(state, &mut env).map_err(backend)
    }

    /// The mesh the program runs on (e.g. for its byte counts).
    pub fn mesh(&mut self) -> &mut Mesh {
        self.mesh
    }

    fn me(&self) -> usize {
        self.mesh.me()
    }

    /// A fresh encryption of zero (re-randomizes a sum; a party's empty contribution).
    fn zero(&mut self) -> Result<Ciphertext, MixedError> {
        self.keys.encrypt(&[], self.rng)
    }
}

/// A protocol error, kept whole for the caller (`PeerError::downcast_ref::<MixedError>`).
fn backend(e: MixedError) -> MixedProgramError {
    MixedProgramError::Backend(PeerError::new(e))
}

/// The [`MixedError`] inside a program error of this backend, if it is one.
pub fn mixed_error(e: &MixedProgramError) -> Option<&MixedError> {
    match e {
        MixedProgramError::Backend(inner) => inner.downcast_ref(),
        _ => None,
    }
}

impl<R: RngCore + CryptoRng> MixedBackend for NpartyBackend<'_, R> {
    type Arith = Vec<u64>;
    type Bool = Vec<u8>;
    type Enc = Packed;
    type Yao = Vec<u32>;

    fn parties(&self) -> usize {
        self.mesh.parties()
    }

    fn phase(&mut self, name: &'static str) {
        self.mesh.set_phase(name);
    }

    /// Keeps the values at their owner only; the owner must give them.
    fn private(
        &mut self,
        owner: usize,
        len: usize,
        values: Option<Vec<u64>>,
    ) -> Result<Private, MixedProgramError> {
        check_party("private input", owner, self.parties())?;
        let values = if owner == self.me() {
            Some(values.ok_or(MixedProgramError::MissingInput { owner })?)
        } else {
            None
        };
        Private::new(owner, len, values)
    }

    fn share(&mut self, value: &Private) -> Result<Vec<u64>, MixedProgramError> {
        private_share(value, self.me())
    }

    fn public_arith(&mut self, values: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
        public_share(values, self.me())
    }

    fn concat_arith(&mut self, parts: &[Vec<u64>]) -> Vec<u64> {
        parts.concat()
    }

    fn add(&mut self, a: &Vec<u64>, b: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        add_mod_p(a, b)
    }

    fn sub(&mut self, a: &Vec<u64>, b: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        sub_mod_p(a, b)
    }

    fn mul_public(&mut self, a: &Vec<u64>, k: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
        mul_public_mod_p(a, k)
    }

    fn sum_chunks(&mut self, a: &Vec<u64>, chunk: usize) -> Result<Vec<u64>, MixedProgramError> {
        sum_chunks_mod_p(a, chunk)
    }

    /// Beaver multiplication with triples from threshold HE (seed §3.3): open x − a and
    /// y − b in one opening; z = c + d·b + e·a (+ d·e at party 0).
    fn mul(&mut self, x: &Vec<u64>, y: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        check_lengths("mul", x.len(), y.len())?;
        let k = x.len();
        if k == 0 {
            return Ok(Vec::new());
        }
        let t = self
            .keys
            .arithmetic_triples(self.mesh, k, self.rng)
            .map_err(backend)?;
        self.mesh.set_phase("A-form products: opening x − a, y − b");
        let mine: Vec<u64> = (0..k)
            .map(|i| (x[i] + P - t.a[i]) % P)
            .chain((0..k).map(|i| (y[i] + P - t.b[i]) % P))
            .collect();
        let de = open_mod_p(self.mesh, mine).map_err(backend)?;
        let first = u64::from(self.me() == 0);
        Ok((0..k)
            .map(|i| {
                let (d, e) = (de[i], de[k + i]);
                (t.c[i] + d * t.b[i] % P + e * t.a[i] % P + first * (d * e % P)) % P
            })
            .collect())
    }

    /// The owner encrypts its values, every other party zero; the chain sum passes the
    /// ciphertext to every party.
    fn encrypt(&mut self, value: &Private) -> Result<Packed, MixedProgramError> {
        check_slots("encrypt", value.len())?;
        let mine = match value.owner() == self.me() {
            true => self.keys.encrypt(value.known()?, self.rng),
            false => self.zero(),
        }
        .map_err(backend)?;
        let par = self.keys.parameters().clone();
        let ct = sum_ciphertexts(self.mesh, &par, mine).map_err(backend)?;
        Ok(Packed { ct, len: value.len() })
    }

    /// Each party's term (its plaintext product and sum) plus a fresh Enc(0), so that the
    /// chain learns nothing of the term; one chain sum, passed back.
    fn mul_add_private(&mut self, ct: &Packed, terms: &[PrivateTerm]) -> Result<Packed, MixedProgramError> {
        check_terms(terms, ct.len, self.parties())?;
        let me = self.me();
        let par = self.keys.parameters().clone();
        let zero = self.zero().map_err(backend)?;
        let mine = match terms.iter().find(|t| t.factor.owner() == me) {
            Some(term) => {
                let (factor, addend) = term
                    .spread(ct.len)
                    .ok_or(MixedProgramError::MissingInput { owner: me })?;
                let product = mul_plain(&par, &ct.ct, &factor).map_err(backend)?;
                add(&add_plain(&par, &product, &addend).map_err(backend)?, &zero)
            }
            None => zero,
        };
        let sum = sum_ciphertexts(self.mesh, &par, mine).map_err(backend)?;
        Ok(Packed { ct: sum, len: ct.len })
    }

    fn public_bits(&mut self, bits: &[bool]) -> Vec<u8> {
        public_bits(self.me(), |i| u8::from(bits[i]), bits.len())
    }

    /// The owner's bits as its XOR shares, every other party's zero (checked at the owner).
    fn share_bits(&mut self, value: &Private, width: usize) -> Result<Vec<Vec<u8>>, MixedProgramError> {
        check_width(value, width)?;
        Ok(bit_rows(&private_share(value, self.me())?, width))
    }

    fn xor(&mut self, a: &Vec<u8>, b: &Vec<u8>) -> Result<Vec<u8>, MixedProgramError> {
        check_lengths("xor", a.len(), b.len())?;
        Ok(xor(a, b))
    }

    fn and(&mut self, a: &Vec<u8>, b: &Vec<u8>) -> Result<Vec<u8>, MixedProgramError> {
        check_lengths("and", a.len(), b.len())?;
        self.engine.and(self.mesh, a, b).map_err(backend)
    }

    fn not(&mut self, a: &Vec<u8>) -> Vec<u8> {
        not(self.me(), a)
    }

    fn gather(&mut self, a: &Vec<u8>, lanes: &[usize]) -> Result<Vec<u8>, MixedProgramError> {
        check_lanes("gather", lanes, a.len())?;
        Ok(lanes.iter().map(|&l| a[l]).collect())
    }

    fn concat(&mut self, parts: &[Vec<u8>]) -> Vec<u8> {
        parts.concat()
    }

    fn stock_ands(&mut self, count: usize) -> Result<(), MixedProgramError> {
        self.engine.stock(self.mesh, count).map_err(backend)
    }

    fn to_arith(&mut self, bits: &Vec<u8>) -> Result<Vec<u64>, MixedProgramError> {
        let values: Vec<u64> = bits.iter().map(|&b| u64::from(b)).collect();
        b2a(self.keys, self.mesh, &values, 1, self.rng).map_err(backend)
    }

    fn to_bool(&mut self, a: &Vec<u64>) -> Result<Vec<Vec<u8>>, MixedProgramError> {
        check_mod_p("A2B share", a)?;
        let values = a2b(self.keys, self.engine, self.mesh, a, self.rng).map_err(backend)?;
        Ok(bit_rows(&values, A2B_BITS))
    }

    fn enc_to_arith(&mut self, ct: &Packed) -> Result<Vec<u64>, MixedProgramError> {
        let mut shares = self
            .keys
            .to_shares(self.mesh, &ct.ct, self.rng)
            .map_err(backend)?;
        shares.truncate(ct.len);
        Ok(shares)
    }

    fn to_enc(&mut self, a: &Vec<u64>) -> Result<Packed, MixedProgramError> {
        check_slots("to_enc", a.len())?;
        let ct = self.keys.from_shares(self.mesh, a, self.rng).map_err(backend)?;
        Ok(Packed { ct, len: a.len() })
    }

    fn to_yao(&mut self, bits: &Vec<u8>) -> Result<Vec<u32>, MixedProgramError> {
        self.with_yao(|y, env| y.from_shares(env, bits))
    }

    fn yao_to_bool(&mut self, a: &Vec<u32>) -> Result<Vec<u8>, MixedProgramError> {
        self.with_yao(|y, env| y.to_shares(env, a))
    }

    fn public_yao(&mut self, bits: &[bool]) -> Result<Vec<u32>, MixedProgramError> {
        self.with_yao(|y, env| y.constants(env, bits))
    }

    fn yao_xor(&mut self, a: &Vec<u32>, b: &Vec<u32>) -> Result<Vec<u32>, MixedProgramError> {
        check_lengths("yao_xor", a.len(), b.len())?;
        self.with_yao(|y, env| y.xor(env, a, b))
    }

    fn yao_and(&mut self, a: &Vec<u32>, b: &Vec<u32>) -> Result<Vec<u32>, MixedProgramError> {
        check_lengths("yao_and", a.len(), b.len())?;
        self.with_yao(|y, env| y.and(env, a, b))
    }

    fn yao_not(&mut self, a: &Vec<u32>) -> Result<Vec<u32>, MixedProgramError> {
        self.with_yao(|y, env| y.not(env, a))
    }

    fn yao_gather(&mut self, a: &Vec<u32>, lanes: &[usize]) -> Result<Vec<u32>, MixedProgramError> {
        check_lanes("yao_gather", lanes, a.len())?;
        Ok(lanes.iter().map(|&l| a[l]).collect())
    }

    fn yao_concat(&mut self, parts: &[Vec<u32>]) -> Vec<u32> {
        parts.concat()
    }

    fn yao_release(&mut self, a: &Vec<u32>) {
        if let Some(y) = self.yao.as_mut() {
            y.release(a);
        }
    }

    fn output_arith(&mut self, a: &Vec<u64>, to: Recipient) -> Result<Option<Vec<u64>>, MixedProgramError> {
        check_mod_p("opened share", a)?;
        match to {
            Recipient::All => open_mod_p(self.mesh, a.clone()).map(Some),
            Recipient::Party(j) => {
                check_party("output", j, self.parties())?;
                open_mod_p_to(self.mesh, j, a.clone())
            }
        }
        .map_err(backend)
    }

    fn output_bool(&mut self, a: &Vec<u8>, to: Recipient) -> Result<Option<Vec<bool>>, MixedProgramError> {
        let opened = match to {
            Recipient::All => open_bits(self.mesh, a.clone()).map(Some),
            Recipient::Party(j) => {
                check_party("output", j, self.parties())?;
                open_bits_to(self.mesh, j, a.clone())
            }
        }
        .map_err(backend)?;
        Ok(opened.map(|bits| bits.into_iter().map(|b| b == 1).collect()))
    }
}
