//! Per-wire state, in arrays indexed by the compiled stream's wire slots (a slot holds one
//! live wire at a time): this party's shares of the garbling (offline) and the public
//! masked values with everyone's active keys (online).

use mixgc_core::{Block, Rng};
use rand::Rng as _;

/// This party's share of the joint garbling of every wire w (BLO16 §3, free-XOR variant):
/// λ^i_w, k^i_{w,0} (with k^i_{w,1} = k^i_{w,0} ⊕ Δ_i) and D_w[k] = [Δ_k·λ_w]^i for every k.
pub(super) struct Shares {
    pub me: usize,
    pub n: usize,
    /// Δ_i, lsb 1.
    pub delta: Block,
    /// λ^i_w.
    pub lambda: Vec<bool>,
    /// k^i_{w,0}, lsb 0.
    pub key0: Vec<Block>,
    /// D_w[k] at `dprod[w·n + k]`.
    pub dprod: Vec<Block>,
}

impl Shares {
    /// Shares of `num_wires` slots, slot 0 the constant 1 ([`mixgc_compile::NOT_SLOT`]).
    pub fn new(me: usize, n: usize, delta: Block, num_wires: usize) -> Shares {
        let mut sh = Shares {
            me,
            n,
            delta,
            lambda: vec![false; num_wires],
            key0: vec![Block::ZERO; num_wires],
            dprod: vec![Block::ZERO; num_wires * n],
        };
        sh.constant(0, true);
        sh.constant_dprod(0, true);
        sh
    }

    /// Room for `num_wires` slots (new slots zero until written).
    pub fn resize(&mut self, num_wires: usize) {
        self.lambda.resize(num_wires, false);
        self.key0.resize(num_wires, Block::ZERO);
        self.dprod.resize(num_wires * self.n, Block::ZERO);
    }

    /// A fresh wire (input or AND output): a random λ share and a random 0-key with lsb 0.
    /// Its D_w comes later, from the batch's Δ-products.
    pub fn fresh(&mut self, w: usize, rng: &mut Rng) {
        self.lambda[w] = rng.gen();
        let k = Block::random(rng);
        self.key0[w] = k ^ Block::from_u128(u128::from(k.lsb()));
    }

    /// The λ share and 0-key of w = u ⊕ v (free-XOR: both linear).
    pub fn xor(&mut self, w: usize, u: usize, v: usize) {
        self.lambda[w] = self.lambda[u] ^ self.lambda[v];
        self.key0[w] = self.key0[u] ^ self.key0[v];
    }

    /// The λ share and 0-key of w = u.
    pub fn copy(&mut self, w: usize, u: usize) {
        self.lambda[w] = self.lambda[u];
        self.key0[w] = self.key0[u];
    }

    /// A constant wire of value c: λ_w = c (party 0's share) and every party's 0-key zero,
    /// so its masked value Λ_w = c ⊕ λ_w = 0 and its active keys (all zero) are public
    /// without any message. Only the inactive keys Δ_i are secret, as for any wire.
    pub fn constant(&mut self, w: usize, c: bool) {
        self.lambda[w] = c && self.me == 0;
        self.key0[w] = Block::ZERO;
    }

    /// D_w for w = u ⊕ v.
    pub fn xor_dprod(&mut self, w: usize, u: usize, v: usize) {
        let n = self.n;
        for k in 0..n {
            self.dprod[w * n + k] = self.dprod[u * n + k] ^ self.dprod[v * n + k];
        }
    }

    /// D_w for w = u.
    pub fn copy_dprod(&mut self, w: usize, u: usize) {
        let n = self.n;
        self.dprod.copy_within(u * n..(u + 1) * n, w * n);
    }

    /// D_w for the constant c (λ_w = c at party 0 only): [Δ_k·c] is Δ_k·c at party k.
    pub fn constant_dprod(&mut self, w: usize, c: bool) {
        let n = self.n;
        self.dprod[w * n..(w + 1) * n].fill(Block::ZERO);
        self.dprod[w * n + self.me] = self.delta.and_bit(c);
    }

    /// D_w of wire w.
    pub fn dprod_of(&self, w: usize) -> &[Block] {
        &self.dprod[w * self.n..(w + 1) * self.n]
    }
}

/// What every party knows of every evaluated wire w: the masked value Λ_w = x_w ⊕ λ_w and
/// every party's active key k^j_{w,Λ_w}.
pub(super) struct Active {
    pub n: usize,
    /// Λ_w.
    pub masked: Vec<bool>,
    /// k^j_{w,Λ_w} at `keys[w·n + j]`.
    pub keys: Vec<Block>,
}

impl Active {
    pub fn new(n: usize, num_wires: usize) -> Active {
        Active {
            n,
            masked: vec![false; num_wires],
            keys: vec![Block::ZERO; num_wires * n],
        }
    }

    /// Room for `num_wires` slots (new slots zero until written).
    pub fn resize(&mut self, num_wires: usize) {
        self.masked.resize(num_wires, false);
        self.keys.resize(num_wires * self.n, Block::ZERO);
    }

    /// The n active keys of wire w.
    pub fn keys_of(&self, w: usize) -> &[Block] {
        &self.keys[w * self.n..(w + 1) * self.n]
    }

    pub fn keys_of_mut(&mut self, w: usize) -> &mut [Block] {
        &mut self.keys[w * self.n..(w + 1) * self.n]
    }

    /// w = u ⊕ v: Λ and every key XOR.
    pub fn xor(&mut self, w: usize, u: usize, v: usize) {
        let n = self.n;
        self.masked[w] = self.masked[u] ^ self.masked[v];
        for j in 0..n {
            self.keys[w * n + j] = self.keys[u * n + j] ^ self.keys[v * n + j];
        }
    }

    /// w = u: Λ and keys unchanged.
    pub fn copy(&mut self, w: usize, u: usize) {
        let n = self.n;
        self.masked[w] = self.masked[u];
        self.keys.copy_within(u * n..(u + 1) * n, w * n);
    }

    /// A constant wire: Λ = 0 and all keys zero (see [`Shares::constant`]).
    pub fn constant(&mut self, w: usize) {
        self.masked[w] = false;
        self.keys_of_mut(w).fill(Block::ZERO);
    }
}
