//! The plaintext mixed backend: every form holds the clear values, so a program's result is
//! the reference answer the n-party backend is checked against.

use super::{
    add_mod_p, bit_rows, check_lanes, check_lengths, check_mod_p, check_party, check_slots, check_terms,
    check_width, mul_mod_p, mul_public_mod_p, sub_mod_p, sum_chunks_mod_p, MixedBackend, MixedProgramError,
    Private, PrivateTerm, Recipient, A2B_BITS, PLAINTEXT_MODULUS as P,
};

/// Runs a mixed program on clear values: every party's private inputs must be given.
#[derive(Clone, Debug)]
pub struct MixedPlain {
    parties: usize,
}

impl MixedPlain {
    /// A run among `parties` (2 or more).
    pub fn new(parties: usize) -> Result<MixedPlain, MixedProgramError> {
        if parties < 2 {
            return Err(MixedProgramError::Input(format!(
                "a mixed-mode run needs at least 2 parties, not {parties}"
            )));
        }
        Ok(MixedPlain { parties })
    }
}

impl MixedBackend for MixedPlain {
    type Arith = Vec<u64>;
    type Bool = Vec<bool>;
    type Enc = Vec<u64>;
    type Yao = Vec<bool>;

    fn parties(&self) -> usize {
        self.parties
    }

    fn private(
        &mut self,
        owner: usize,
        len: usize,
        values: Option<Vec<u64>>,
    ) -> Result<Private, MixedProgramError> {
        check_party("private input", owner, self.parties)?;
        let private = Private::new(owner, len, values)?;
        private.known()?;
        Ok(private)
    }

    fn share(&mut self, value: &Private) -> Result<Vec<u64>, MixedProgramError> {
        Ok(value.known()?.to_vec())
    }

    fn public_arith(&mut self, values: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
        check_mod_p("public value", values)?;
        Ok(values.to_vec())
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

    fn mul(&mut self, a: &Vec<u64>, b: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        mul_mod_p(a, b)
    }

    fn encrypt(&mut self, value: &Private) -> Result<Vec<u64>, MixedProgramError> {
        check_slots("encrypt", value.len())?;
        Ok(value.known()?.to_vec())
    }

    fn mul_add_private(
        &mut self,
        ct: &Vec<u64>,
        terms: &[PrivateTerm],
    ) -> Result<Vec<u64>, MixedProgramError> {
        check_terms(terms, ct.len(), self.parties)?;
        let mut sum = vec![0u64; ct.len()];
        for t in terms {
            let (f, g) = (t.factor.known()?, t.addend.known()?);
            for (k, &slot) in t.slots.iter().enumerate() {
                sum[slot] = (sum[slot] + ct[slot] * f[k] % P + g[k]) % P;
            }
        }
        Ok(sum)
    }

    fn public_bits(&mut self, bits: &[bool]) -> Vec<bool> {
        bits.to_vec()
    }

    fn share_bits(&mut self, value: &Private, width: usize) -> Result<Vec<Vec<bool>>, MixedProgramError> {
        check_width(value, width)?;
        Ok(bit_rows(value.known()?, width))
    }

    fn xor(&mut self, a: &Vec<bool>, b: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        check_lengths("xor", a.len(), b.len())?;
        Ok(a.iter().zip(b).map(|(x, y)| x ^ y).collect())
    }

    fn and(&mut self, a: &Vec<bool>, b: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        check_lengths("and", a.len(), b.len())?;
        Ok(a.iter().zip(b).map(|(x, y)| x & y).collect())
    }

    fn not(&mut self, a: &Vec<bool>) -> Vec<bool> {
        a.iter().map(|x| !x).collect()
    }

    fn gather(&mut self, a: &Vec<bool>, lanes: &[usize]) -> Result<Vec<bool>, MixedProgramError> {
        check_lanes("gather", lanes, a.len())?;
        Ok(lanes.iter().map(|&l| a[l]).collect())
    }

    fn concat(&mut self, parts: &[Vec<bool>]) -> Vec<bool> {
        parts.concat()
    }

    fn stock_ands(&mut self, _count: usize) -> Result<(), MixedProgramError> {
        Ok(())
    }

    fn to_arith(&mut self, bits: &Vec<bool>) -> Result<Vec<u64>, MixedProgramError> {
        Ok(bits.iter().map(|&b| u64::from(b)).collect())
    }

    fn to_bool(&mut self, a: &Vec<u64>) -> Result<Vec<Vec<bool>>, MixedProgramError> {
        Ok(bit_rows(a, A2B_BITS))
    }

    fn enc_to_arith(&mut self, ct: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        Ok(ct.clone())
    }

    fn to_enc(&mut self, a: &Vec<u64>) -> Result<Vec<u64>, MixedProgramError> {
        check_slots("to_enc", a.len())?;
        Ok(a.clone())
    }

    fn to_yao(&mut self, bits: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        Ok(bits.clone())
    }

    fn yao_to_bool(&mut self, a: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        Ok(a.clone())
    }

    fn public_yao(&mut self, bits: &[bool]) -> Result<Vec<bool>, MixedProgramError> {
        Ok(bits.to_vec())
    }

    fn yao_xor(&mut self, a: &Vec<bool>, b: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        self.xor(a, b)
    }

    fn yao_and(&mut self, a: &Vec<bool>, b: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        self.and(a, b)
    }

    fn yao_not(&mut self, a: &Vec<bool>) -> Result<Vec<bool>, MixedProgramError> {
        Ok(self.not(a))
    }

    fn yao_gather(&mut self, a: &Vec<bool>, lanes: &[usize]) -> Result<Vec<bool>, MixedProgramError> {
        self.gather(a, lanes)
    }

    fn yao_concat(&mut self, parts: &[Vec<bool>]) -> Vec<bool> {
        parts.concat()
    }

    fn output_arith(&mut self, a: &Vec<u64>, to: Recipient) -> Result<Option<Vec<u64>>, MixedProgramError> {
        check_recipient(to, self.parties)?;
        Ok(Some(a.clone()))
    }

    fn output_bool(&mut self, a: &Vec<bool>, to: Recipient) -> Result<Option<Vec<bool>>, MixedProgramError> {
        check_recipient(to, self.parties)?;
        Ok(Some(a.clone()))
    }
}

/// Checks that an output's recipient is a party of the run.
pub(super) fn check_recipient(to: Recipient, parties: usize) -> Result<(), MixedProgramError> {
    match to {
        Recipient::Party(p) => check_party("output", p, parties),
        Recipient::All => Ok(()),
    }
}
