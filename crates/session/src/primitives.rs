//! The primitives of [`mixgc_program::ArithBackend`] that are the same code for the
//! session's program backends (`program/crt.rs`) and the in-memory pair (`memory.rs`): label
//! arithmetic, and the gated primitives through each type's own `garble` (garbler: run the
//! arithmetic core, rows appended to its tables) or `evaluate` (evaluator: run it on exactly
//! the primitive's bytes of rows, [`mixgc_arith::table_bytes`]). Failures are recorded with
//! the type's `fail` and reported at its next input, output or check.

/// Free label arithmetic, the same at garbler and evaluator.
macro_rules! label_primitives {
    () => {
        fn mod_add(&mut self, a: &mixgc_arith::Label, b: &mixgc_arith::Label) -> mixgc_arith::Label {
            a.add(b).unwrap_or_else(|e| {
                self.fail(e);
                mixgc_arith::Label::zero(a.modulus())
            })
        }

        fn mod_sub(&mut self, a: &mixgc_arith::Label, b: &mixgc_arith::Label) -> mixgc_arith::Label {
            a.sub(b).unwrap_or_else(|e| {
                self.fail(e);
                mixgc_arith::Label::zero(a.modulus())
            })
        }

        fn mod_scale(&mut self, a: &mixgc_arith::Label, c: u64) -> mixgc_arith::Label {
            a.scale(c)
        }

        fn bit_to_mod2(&mut self, bit: mixgc_core::Block) -> mixgc_arith::Label {
            mixgc_arith::Label::from_block(bit)
        }

        fn mod2_to_bit(&mut self, a: &mixgc_arith::Label) -> mixgc_core::Block {
            a.to_block().unwrap_or_else(|e| {
                self.fail(e);
                mixgc_core::Block::ZERO
            })
        }

        fn ring_zero(&mut self, bits: u32) -> mixgc_arith::RingLabel {
            mixgc_arith::RingLabel::zero(bits)
        }

        fn ring_add_shifted(
            &mut self,
            acc: &mut mixgc_arith::RingLabel,
            x: &mixgc_arith::RingLabel,
            c: u128,
            shift: u32,
        ) {
            acc.add_shifted_assign(x, c, shift);
        }

        fn ring_slice(&mut self, a: &mixgc_arith::RingLabel, i: u32) -> mixgc_core::Block {
            a.slice(i)
        }

        fn gadget_error(&mut self, e: mixgc_program::ProgramError) {
            self.fail($crate::SessionError::of_gadget(e));
        }
    };
}

/// The gated primitives at the garbler, through its `garble(fallback, primitive)`.
macro_rules! garbler_primitives {
    () => {
        fn mod_project(
            &mut self,
            a: &mixgc_arith::Label,
            out: mixgc_arith::Modulus,
            table: &[u64],
        ) -> mixgc_arith::Label {
            self.garble(
                || mixgc_arith::Label::zero(out),
                |g, rows| g.project(a, out, table, rows),
            )
        }

        fn mod_to_bit(&mut self, a: &mixgc_arith::Label, table: &[u64]) -> mixgc_core::Block {
            self.garble(
                || mixgc_core::Block::ZERO,
                |g, rows| g.project_to_bit(a, table, rows),
            )
        }

        fn bits_to_mod(&mut self, terms: &[mixgc_arith::Term]) -> Vec<mixgc_arith::Label> {
            let fallback = || {
                terms
                    .iter()
                    .map(|&(_, m)| mixgc_arith::Label::zero(m))
                    .collect()
            };
            self.garble(fallback, |g, rows| g.compose_powers(terms, rows))
        }

        fn mod_mul(
            &mut self,
            pairs: &[(&mixgc_arith::Label, &mixgc_arith::Label)],
        ) -> Vec<mixgc_arith::Label> {
            let fallback = || {
                pairs
                    .iter()
                    .map(|(a, _)| mixgc_arith::Label::zero(a.modulus()))
                    .collect()
            };
            self.garble(fallback, |g, rows| {
                pairs.iter().map(|(a, b)| g.mul(a, b, rows)).collect()
            })
        }

        fn ring_lift(&mut self, bit: mixgc_core::Block, bits: u32) -> mixgc_arith::RingLabel {
            self.garble(
                || mixgc_arith::RingLabel::zero(bits),
                |g, rows| g.lift(bit, bits, rows),
            )
        }
    };
}

/// The gated primitives at the evaluator, through its `evaluate(bytes, fallback, primitive)`.
macro_rules! evaluator_primitives {
    () => {
        fn mod_project(
            &mut self,
            a: &mixgc_arith::Label,
            out: mixgc_arith::Modulus,
            _table: &[u64],
        ) -> mixgc_arith::Label {
            let bytes = Ok(mixgc_arith::table_bytes::projection(a.modulus(), out).bytes);
            self.evaluate(
                bytes,
                || mixgc_arith::Label::zero(out),
                |ev, t| ev.project(a, out, t),
            )
        }

        fn mod_to_bit(&mut self, a: &mixgc_arith::Label, _table: &[u64]) -> mixgc_core::Block {
            let bytes =
                Ok(mixgc_arith::table_bytes::projection(a.modulus(), mixgc_arith::Modulus::BOOLEAN).bytes);
            self.evaluate(
                bytes,
                || mixgc_core::Block::ZERO,
                |ev, t| ev.project_to_bit(a, t),
            )
        }

        fn bits_to_mod(&mut self, terms: &[mixgc_arith::Term]) -> Vec<mixgc_arith::Label> {
            let bytes = Ok(mixgc_arith::table_bytes::compose_powers(mixgc_arith::term_sizes(terms)).bytes);
            let fallback = || {
                terms
                    .iter()
                    .map(|&(_, m)| mixgc_arith::Label::zero(m))
                    .collect()
            };
            self.evaluate(bytes, fallback, |ev, t| ev.compose_powers(terms, t))
        }

        fn mod_mul(
            &mut self,
            pairs: &[(&mixgc_arith::Label, &mixgc_arith::Label)],
        ) -> Vec<mixgc_arith::Label> {
            let product = |(a, _): &(&mixgc_arith::Label, &mixgc_arith::Label)| {
                mixgc_arith::table_bytes::product(a.modulus()).bytes
            };
            let bytes = Ok(pairs.iter().map(product).sum());
            let fallback = || {
                pairs
                    .iter()
                    .map(|(a, _)| mixgc_arith::Label::zero(a.modulus()))
                    .collect()
            };
            self.evaluate(bytes, fallback, |ev, t| ev.mul_many(pairs, t))
        }

        fn ring_lift(&mut self, bit: mixgc_core::Block, bits: u32) -> mixgc_arith::RingLabel {
            let bytes = Ok(mixgc_arith::table_bytes::lift(bits).bytes);
            self.evaluate(
                bytes,
                || mixgc_arith::RingLabel::zero(bits),
                |ev, t| ev.lift(bit, bits, t),
            )
        }
    };
}

pub(crate) use {evaluator_primitives, garbler_primitives, label_primitives};
