//! AES-128 kernels chosen at run time: the portable `aes` crate, AES-NI, and VAES on 256-
//! or 512-bit registers. Each batch call dispatches once; the wide kernels keep many
//! blocks in flight. Besides fixed-key encryption they run the re-keyed cipher (a key per
//! block or per pair of blocks) with key expansion fused into encryption, round by round.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::hash::{counter_chunks_mut, counter_tweaks, offset_pairs_counter_chunks, tweak_room};
use crate::Block;

#[cfg(target_arch = "x86_64")]
mod aesni;
mod portable;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod vaes256;
#[cfg(target_arch = "x86_64")]
mod vaes512;

/// The environment variable that forces a kernel by name (e.g. `MIXGC_AES_KERNEL=aes-ni`).
pub const AES_KERNEL_ENV: &str = "MIXGC_AES_KERNEL";

/// Round constants of the AES-128 key schedule (FIPS-197 §5.2).
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// An implementation of AES-128, from the slowest to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AesKernel {
    /// The `aes` crate (its own AES-NI or ARMv8 path where the CPU has one).
    Portable,
    /// AES-NI, one block per instruction, 8 in flight.
    AesNi,
    /// VAES on 256-bit registers (AVX2).
    Vaes256,
    /// VAES on 512-bit registers (AVX-512F/BW).
    Vaes512,
}

/// An unknown kernel name, or one this CPU cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AesKernelError(String);

impl fmt::Display for AesKernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AesKernelError {}

impl AesKernel {
    pub const ALL: [AesKernel; 4] = [
        AesKernel::Portable,
        AesKernel::AesNi,
        AesKernel::Vaes256,
        AesKernel::Vaes512,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AesKernel::Portable => "portable",
            AesKernel::AesNi => "aes-ni",
            AesKernel::Vaes256 => "vaes-256",
            AesKernel::Vaes512 => "vaes-512",
        }
    }

    /// Whether this CPU runs the kernel (detected once per process: every batch call
    /// checks it).
    pub fn is_available(self) -> bool {
        static AVAILABLE: OnceLock<[bool; 4]> = OnceLock::new();
        AVAILABLE.get_or_init(|| AesKernel::ALL.map(AesKernel::detect))[self as usize]
    }

    /// [`AesKernel::is_available`], asking the CPU.
    fn detect(self) -> bool {
        match self {
            AesKernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            AesKernel::AesNi => is_x86_feature_detected!("aes") && is_x86_feature_detected!("ssse3"),
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes256 => {
                AesKernel::AesNi.detect()
                    && is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("vaes")
            }
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes512 => {
                AesKernel::AesNi.detect()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("vaes")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernels this CPU runs, slowest first.
    pub fn available() -> Vec<AesKernel> {
        AesKernel::ALL.into_iter().filter(|k| k.is_available()).collect()
    }

    /// The widest kernel this CPU runs.
    pub fn best() -> AesKernel {
        AesKernel::available().pop().unwrap_or(AesKernel::Portable)
    }

    /// The process-wide kernel: [`AesKernel::best`], unless [`AES_KERNEL_ENV`] names
    /// another; an unknown name or one this CPU lacks is an error (decided once).
    pub fn current() -> Result<AesKernel, AesKernelError> {
        static CHOICE: OnceLock<Result<AesKernel, AesKernelError>> = OnceLock::new();
        CHOICE
            .get_or_init(|| AesKernel::choose(std::env::var(AES_KERNEL_ENV).ok().as_deref()))
            .clone()
    }

    /// The kernel asked for by `requested` (the variable's value, if set).
    fn choose(requested: Option<&str>) -> Result<AesKernel, AesKernelError> {
        let Some(name) = requested.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(AesKernel::best());
        };
        let kernel: AesKernel = name
            .parse()
            .map_err(|e| AesKernelError(format!("{AES_KERNEL_ENV}={name}: {e}")))?;
        if !kernel.is_available() {
            let names: Vec<_> = AesKernel::available().iter().map(|k| k.name()).collect();
            return Err(AesKernelError(format!(
                "{AES_KERNEL_ENV}={name}: this CPU cannot run the {name} AES kernel (it runs {})",
                names.join(", ")
            )));
        }
        Ok(kernel)
    }

    /// [`AesKernel::current`] for the hashes; panics on a bad [`AES_KERNEL_ENV`] (programs
    /// check [`AesKernel::current`] at start-up to report it cleanly).
    pub fn active() -> AesKernel {
        AesKernel::current().unwrap_or_else(|e| panic!("{e}"))
    }

    fn checked(self) -> AesKernel {
        assert!(
            self.is_available(),
            "this CPU cannot run the {} AES kernel",
            self.name()
        );
        self
    }

    /// The AES-128 key schedule of `key`.
    pub fn expand(self, key: Block) -> RoundKeys {
        let keys = match self.checked() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY (every x86 kernel call below): `checked` verified the CPU features.
            AesKernel::AesNi | AesKernel::Vaes256 | AesKernel::Vaes512 => unsafe { aesni::expand(key) },
            _ => portable::expand_keys(key),
        };
        RoundKeys {
            keys,
            cipher: portable::cipher(key),
        }
    }

    /// Encrypts every block in place under `keys`.
    pub fn encrypt_many(self, keys: &RoundKeys, xs: &mut [Block]) {
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            AesKernel::AesNi => unsafe { aesni::encrypt_many(keys, xs) },
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes256 => unsafe { vaes256::encrypt_many(keys, xs) },
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes512 => unsafe { vaes512::encrypt_many(keys, xs) },
            _ => portable::encrypt_many(keys, xs),
        }
    }

    fn rekeyed<const PAIR: bool, const MMO: bool>(self, seed: Block, xs: &mut [Block], tweaks: &[Block]) {
        let per = if PAIR { 2 } else { 1 };
        assert_eq!(xs.len(), per * tweaks.len(), "one tweak per block (per pair)");
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            AesKernel::AesNi => unsafe { aesni::rekeyed::<PAIR, MMO>(seed, xs, tweaks) },
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes256 => unsafe { vaes256::rekeyed::<PAIR, MMO>(seed, xs, tweaks) },
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes512 => unsafe { vaes512::rekeyed::<PAIR, MMO>(seed, xs, tweaks) },
            _ => portable::rekeyed(seed, xs, tweaks, per, MMO),
        }
    }

    /// `xs[i] = AES_{seed ⊕ tweaks[i]}(xs[i])`.
    pub fn encrypt_each_under(self, seed: Block, xs: &mut [Block], tweaks: &[Block]) {
        self.rekeyed::<false, false>(seed, xs, tweaks);
    }

    /// `xs[2i], xs[2i+1]` encrypted under `seed ⊕ tweaks[i]`; `xs.len() == 2 · tweaks.len()`.
    pub fn encrypt_pairs_under(self, seed: Block, xs: &mut [Block], tweaks: &[Block]) {
        self.rekeyed::<true, false>(seed, xs, tweaks);
    }

    /// [`AesKernel::encrypt_each_under`] on σ(x), then ⊕ σ(x): the re-keyed hash.
    pub(crate) fn sigma_mmo_each_under(self, seed: Block, xs: &mut [Block], tweaks: &[Block]) {
        self.rekeyed::<false, true>(seed, xs, tweaks);
    }

    /// [`AesKernel::encrypt_pairs_under`] on σ(x), then ⊕ σ(x).
    pub(crate) fn sigma_mmo_pairs_under(self, seed: Block, xs: &mut [Block], tweaks: &[Block]) {
        self.rekeyed::<true, true>(seed, xs, tweaks);
    }

    /// The re-keyed hash (σ, then MMO) of each block and of the block ⊕ `delta` under the
    /// block's key `seed ⊕ tweaks[i]`: `h0[i] = H(xs[i])`, `h1[i] = H(xs[i] ⊕ delta)`, the
    /// same values as [`AesKernel::sigma_mmo_pairs_under`] on the pairs (x, x ⊕ Δ). VAES-512
    /// builds the offset blocks in registers and uses each key register for both hashes;
    /// the other kernels hash the pairs.
    pub(crate) fn sigma_mmo_offset_pairs(
        self,
        seed: Block,
        delta: Block,
        xs: &[Block],
        tweaks: &[Block],
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        assert!(
            tweaks.len() == xs.len() && h0.len() == xs.len() && h1.len() == xs.len(),
            "one tweak and two outputs per block"
        );
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            AesKernel::Vaes512 => unsafe { vaes512::sigma_mmo_offset_pairs(seed, delta, xs, tweaks, h0, h1) },
            _ => crate::hash::offset_pairs_by_pairs(xs, delta, tweaks, h0, h1, |pairs, tweaks| {
                self.sigma_mmo_pairs_under(seed, pairs, tweaks)
            }),
        }
    }

    /// [`AesKernel::sigma_mmo_each_under`] with tweaks `first + i` (wrapping in `u128`).
    /// VAES-512 makes the tweaks in registers when the low 64 bits do not wrap within the
    /// batch (always, for half-gates tweaks); otherwise the tweaks are written out.
    pub(crate) fn sigma_mmo_counter(self, seed: Block, xs: &mut [Block], first: u128) {
        let kernel = self.checked();
        let mut room = tweak_room();
        for (xs, first) in counter_chunks_mut(xs, first) {
            #[cfg(target_arch = "x86_64")]
            if kernel == AesKernel::Vaes512 && low_half_counts(first, xs.len()) {
                // SAFETY: `checked` verified the CPU features.
                unsafe { vaes512::sigma_mmo_counter(seed, xs, first) };
                continue;
            }
            kernel.sigma_mmo_each_under(seed, xs, counter_tweaks(&mut room, xs.len(), first));
        }
    }

    /// [`AesKernel::sigma_mmo_offset_pairs`] with tweaks `first + i` (wrapping in `u128`),
    /// made in registers as in [`AesKernel::sigma_mmo_counter`].
    pub(crate) fn sigma_mmo_offset_pairs_counter(
        self,
        seed: Block,
        delta: Block,
        xs: &[Block],
        first: u128,
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        let kernel = self.checked();
        offset_pairs_counter_chunks(xs, first, h0, h1, |xs, first, h0, h1| {
            #[cfg(target_arch = "x86_64")]
            if kernel == AesKernel::Vaes512 && low_half_counts(first, xs.len()) {
                // SAFETY: `checked` verified the CPU features, `offset_pairs_counter_chunks`
                // the lengths.
                return unsafe { vaes512::sigma_mmo_offset_pairs_counter(seed, delta, xs, first, h0, h1) };
            }
            let mut room = tweak_room();
            let tweaks = counter_tweaks(&mut room, xs.len(), first);
            kernel.sigma_mmo_offset_pairs(seed, delta, xs, tweaks, h0, h1);
        });
    }
}

impl AesKernel {
    /// The half-gates evaluator's outputs under the re-keyed hash (ZRE15 Fig. 2; see
    /// [`crate::TweakableHash::try_half_gates_eval_counter`]) computed in one fused kernel, or
    /// `false` where this kernel has none (VAES-512 only, and only while the tweaks' low
    /// 64 bits do not wrap): the caller then hashes and combines on its own.
    pub(crate) fn half_gates_eval_counter(
        self,
        seed: Block,
        labels: &[Block],
        rows: &[Block],
        first: u128,
        out: &mut [Block],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.runs_fused_half_gates(labels, rows.len(), out.len(), first) {
            // SAFETY: CPU features, lengths and counter checked by `runs_fused_half_gates`.
            unsafe { vaes512::half_gates_eval_counter(seed, labels, rows, first, out) };
            return true;
        }
        let _ = (seed, first);
        false
    }

    /// The half-gates garbler's rows and output zero-labels under the re-keyed hash (ZRE15
    /// Fig. 2; see [`crate::TweakableHash::try_half_gates_garble_counter`]) in one fused
    /// kernel, or `false` (nothing written) where this kernel has none, as
    /// [`AesKernel::half_gates_eval_counter`].
    pub(crate) fn half_gates_garble_counter(
        self,
        seed: Block,
        delta: Block,
        labels: &[Block],
        first: u128,
        rows: &mut [std::mem::MaybeUninit<Block>],
        out: &mut [Block],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.runs_fused_half_gates(labels, rows.len(), out.len(), first) {
            // SAFETY: CPU features, lengths and counter checked by `runs_fused_half_gates`.
            unsafe { vaes512::half_gates_garble_counter(seed, delta, labels, first, rows, out) };
            return true;
        }
        let _ = (seed, delta, first);
        false
    }

    /// Whether the fused half-gates kernels run here: on VAES-512 (the CPU checked) with
    /// the tweaks' low 64 bits not wrapping. Panics unless there are two labels and two
    /// rows per output.
    #[cfg(target_arch = "x86_64")]
    fn runs_fused_half_gates(self, labels: &[Block], rows: usize, outputs: usize, first: u128) -> bool {
        assert!(
            labels.len() == 2 * outputs && rows == labels.len(),
            "two labels, two rows and one output per gate"
        );
        self.checked() == AesKernel::Vaes512 && low_half_counts(first, labels.len())
    }
}

/// Whether `first + i` for every `i < n` only adds to the low 64 bits of `first` (no carry
/// into the high half), so a kernel may count in 64-bit lanes.
fn low_half_counts(first: u128, n: usize) -> bool {
    (first as u64).checked_add(n as u64).is_some()
}

/// The CPU features the AES kernels care about, and whether this CPU has each.
pub fn cpu_features() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "x86_64")]
    return vec![
        ("aes", is_x86_feature_detected!("aes")),
        ("ssse3", is_x86_feature_detected!("ssse3")),
        ("avx2", is_x86_feature_detected!("avx2")),
        ("vaes", is_x86_feature_detected!("vaes")),
        ("avx512f", is_x86_feature_detected!("avx512f")),
        ("avx512bw", is_x86_feature_detected!("avx512bw")),
        ("vpclmulqdq", is_x86_feature_detected!("vpclmulqdq")),
    ];
    #[cfg(target_arch = "aarch64")]
    return vec![("aes", std::arch::is_aarch64_feature_detected!("aes"))];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return Vec::new();
}

impl fmt::Display for AesKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AesKernel {
    type Err = String;
    fn from_str(s: &str) -> Result<AesKernel, String> {
        AesKernel::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = AesKernel::ALL.iter().map(|k| k.name()).collect();
            format!("unknown AES kernel '{s}' (expected one of {})", names.join(", "))
        })
    }
}

/// An expanded AES-128 key: the 11 round keys, and the portable cipher's own schedule.
#[derive(Clone)]
pub struct RoundKeys {
    keys: [Block; 11],
    cipher: ::aes::Aes128Enc,
}

/// The round keys are overwritten when dropped: under a secret key (the IKNP PRG's) they
/// are as secret as the key (the portable cipher wipes its own schedule, `aes/zeroize`).
impl Drop for RoundKeys {
    fn drop(&mut self) {
        for k in &mut self.keys {
            zeroize::Zeroize::zeroize(k.as_bytes_mut());
        }
    }
}

impl RoundKeys {
    /// Round key `i` (0 is the key itself, 10 the last).
    pub fn round_key(&self, i: usize) -> Block {
        self.keys[i]
    }

    #[cfg(target_arch = "x86_64")]
    fn m128(&self) -> [std::arch::x86_64::__m128i; 11] {
        self.keys.map(Block::into_m128)
    }
}

/// σ(x_L‖x_R) = (x_L⊕x_R)‖x_L, a linear orthomorphism (x_L the high 64 bits).
#[inline(always)]
pub(crate) fn sigma(x: Block) -> Block {
    let v = x.to_u128();
    let (hi, lo) = (v >> 64, v & u64::MAX as u128);
    Block::from_u128(((hi ^ lo) << 64) | hi)
}

#[cfg(target_arch = "x86_64")]
fn as_m128(xs: &mut [Block]) -> &mut [std::arch::x86_64::__m128i] {
    // SAFETY: Block is repr(transparent) over __m128i on x86_64.
    unsafe { std::slice::from_raw_parts_mut(xs.as_mut_ptr().cast(), xs.len()) }
}

#[cfg(target_arch = "x86_64")]
fn as_m128_ref(xs: &[Block]) -> &[std::arch::x86_64::__m128i] {
    // SAFETY: as in `as_m128`.
    unsafe { std::slice::from_raw_parts(xs.as_ptr().cast(), xs.len()) }
}
