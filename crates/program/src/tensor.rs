//! Arrays of secret values with 1 to 4 dimensions, stored row-major (the last index varies
//! fastest), generic over the element type ([`UInt`], [`SInt`], [`Fixed`] or any
//! [`Element`]).
//!
//! Reshaping, slicing, indexing and transposing move wire handles only: they are free. Every
//! shape mistake (element counts, ranks, ranges, mismatched operands) is a
//! [`TensorError`], never a panic. Element-wise operations and matrix products follow the
//! rules of the element type (width extension, wrapping; for [`Fixed`] the rounding rule of
//! the `fixed` module, with one rounding per dot product in [`Tensor::matmul`]).

use std::ops::Range;

use crate::fixed::{Fixed, FixedError, FixedFormat};
use crate::{Backend, Ctx, PartyId, ProgramError, SInt, UInt};

/// The most dimensions a tensor may have.
pub const MAX_DIMS: usize = 4;

/// Why a tensor operation could not be done.
#[derive(Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorError {
    /// Shapes, ranks, indices or ranges that do not fit.
    #[error("shape error: {0}")]
    Shape(String),
    /// An input or constant element that does not fit its format.
    #[error("value error: {0}")]
    Value(String),
    #[error(transparent)]
    Fixed(#[from] FixedError),
    #[error(transparent)]
    Program(#[from] ProgramError),
}

fn shape_err<T>(msg: String) -> Result<T, TensorError> {
    Err(TensorError::Shape(msg))
}

/// What a tensor can hold: a secret value with arithmetic, inputs and reveal.
pub trait Element: Clone {
    type Backend: Backend;
    /// What fixes the encoding of an element: the width for integers, a [`FixedFormat`].
    type Format: Copy + std::fmt::Debug;
    /// The host value of an element.
    type Clear: Copy + std::fmt::Debug + PartialEq;

    fn add(&self, other: &Self) -> Self;
    fn sub(&self, other: &Self) -> Self;
    fn mul(&self, other: &Self) -> Self;

    /// `Σ xs[i]·ys[i]` for equal, non-zero lengths. The default adds the products; [`Fixed`]
    /// keeps exact products and rounds once.
    fn dot(xs: &[&Self], ys: &[&Self]) -> Self {
        let mut acc = xs[0].mul(ys[0]);
        for (x, y) in xs.iter().zip(ys).skip(1) {
            acc = acc.add(&x.mul(y));
        }
        acc
    }

    /// A secret input owned by `owner`; `value` is the owner's secret (plaintext backend).
    /// A value that does not fit `format` is an error.
    fn input(
        ctx: &Ctx<Self::Backend>,
        owner: PartyId,
        format: Self::Format,
        value: Option<Self::Clear>,
    ) -> Result<Self, TensorError>;

    /// A public constant; a value that does not fit `format` is an error.
    fn constant(
        ctx: &Ctx<Self::Backend>,
        format: Self::Format,
        value: Self::Clear,
    ) -> Result<Self, TensorError>;

    /// Marks the element as an output; its value where this party learns it.
    fn reveal(&self) -> Result<Option<Self::Clear>, ProgramError>;
}

fn check_uint(width: u32, v: u128) -> Result<(), TensorError> {
    if width < 128 && v >> width != 0 {
        return Err(TensorError::Value(format!(
            "{v} does not fit an unsigned {width}-bit element"
        )));
    }
    Ok(())
}

fn check_sint(width: u32, v: i128) -> Result<(), TensorError> {
    let fits = match width {
        0 => v == 0,
        1..=127 => (-(1i128 << (width - 1))..1i128 << (width - 1)).contains(&v),
        _ => true,
    };
    if !fits {
        return Err(TensorError::Value(format!(
            "{v} does not fit a signed {width}-bit element"
        )));
    }
    Ok(())
}

impl<B: Backend> Element for UInt<B> {
    type Backend = B;
    type Format = u32;
    type Clear = u128;

    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn input(ctx: &Ctx<B>, owner: PartyId, width: u32, value: Option<u128>) -> Result<Self, TensorError> {
        if let Some(v) = value {
            check_uint(width, v)?;
        }
        Ok(ctx.input_uint(owner, width, value)?)
    }
    fn constant(ctx: &Ctx<B>, width: u32, value: u128) -> Result<Self, TensorError> {
        check_uint(width, value)?;
        Ok(ctx.uint(width, value))
    }
    fn reveal(&self) -> Result<Option<u128>, ProgramError> {
        Ok(UInt::reveal(self)?.map(|b| crate::to_u128(&b)))
    }
}

impl<B: Backend> Element for SInt<B> {
    type Backend = B;
    type Format = u32;
    type Clear = i128;

    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn input(ctx: &Ctx<B>, owner: PartyId, width: u32, value: Option<i128>) -> Result<Self, TensorError> {
        if let Some(v) = value {
            check_sint(width, v)?;
        }
        Ok(ctx.input_sint(owner, width, value)?)
    }
    fn constant(ctx: &Ctx<B>, width: u32, value: i128) -> Result<Self, TensorError> {
        check_sint(width, value)?;
        Ok(ctx.sint(width, value))
    }
    fn reveal(&self) -> Result<Option<i128>, ProgramError> {
        Ok(SInt::reveal(self)?.map(|b| crate::to_i128(&b)))
    }
}

impl<B: Backend> Element for Fixed<B> {
    type Backend = B;
    type Format = FixedFormat;
    type Clear = f64;

    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn dot(xs: &[&Self], ys: &[&Self]) -> Self {
        Fixed::dot(xs, ys).expect("equal, non-zero lengths")
    }
    fn input(
        ctx: &Ctx<B>,
        owner: PartyId,
        format: FixedFormat,
        value: Option<f64>,
    ) -> Result<Self, TensorError> {
        Ok(ctx.input_fixed(owner, format, value)?)
    }
    fn constant(ctx: &Ctx<B>, format: FixedFormat, value: f64) -> Result<Self, TensorError> {
        Ok(ctx.fixed(format, value)?)
    }
    fn reveal(&self) -> Result<Option<f64>, ProgramError> {
        Fixed::reveal(self)
    }
}

/// An n-dimensional array (1 ≤ n ≤ 4) of values, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

fn check_shape(shape: &[usize]) -> Result<usize, TensorError> {
    if shape.is_empty() || shape.len() > MAX_DIMS {
        return shape_err(format!(
            "a tensor has 1 to {MAX_DIMS} dimensions, shape {shape:?} has {}",
            shape.len()
        ));
    }
    if shape.contains(&0) {
        return shape_err(format!("every dimension must be at least 1, got shape {shape:?}"));
    }
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| TensorError::Shape(format!("shape {shape:?} has too many elements")))
}

impl<T> Tensor<T> {
    /// A tensor of `shape` over `data` in row-major order.
    pub fn from_vec(shape: &[usize], data: Vec<T>) -> Result<Self, TensorError> {
        let n = check_shape(shape)?;
        if n != data.len() {
            return shape_err(format!(
                "shape {shape:?} has {n} elements, {} were given",
                data.len()
            ));
        }
        Ok(Tensor {
            shape: shape.to_vec(),
            data,
        })
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dimensions (1 to 4).
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Always false: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements, row-major.
    pub fn elements(&self) -> &[T] {
        &self.data
    }

    pub fn into_elements(self) -> Vec<T> {
        self.data
    }

    /// Row-major offset of `index`.
    fn offset(&self, index: &[usize]) -> Result<usize, TensorError> {
        if index.len() != self.shape.len() {
            return shape_err(format!(
                "index {index:?} has {} coordinates, the tensor has {} dimensions (shape {:?})",
                index.len(),
                self.shape.len(),
                self.shape
            ));
        }
        let mut off = 0;
        for (axis, (&i, &d)) in index.iter().zip(&self.shape).enumerate() {
            if i >= d {
                return shape_err(format!(
                    "index {index:?} is out of bounds: coordinate {i} on axis {axis} of size {d}"
                ));
            }
            off = off * d + i;
        }
        Ok(off)
    }

    /// The element at `index` (one coordinate per dimension).
    pub fn get(&self, index: &[usize]) -> Result<&T, TensorError> {
        Ok(&self.data[self.offset(index)?])
    }

    /// Applies `f` to every element (same shape).
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> Tensor<U> {
        Tensor {
            shape: self.shape.clone(),
            data: self.data.iter().map(f).collect(),
        }
    }

    /// Combines the elements of two tensors of equal shapes.
    pub fn zip_with<U, V>(
        &self,
        other: &Tensor<U>,
        mut f: impl FnMut(&T, &U) -> V,
    ) -> Result<Tensor<V>, TensorError> {
        if self.shape != other.shape {
            return shape_err(format!(
                "element-wise operation on shapes {:?} and {:?}",
                self.shape, other.shape
            ));
        }
        Ok(Tensor {
            shape: self.shape.clone(),
            data: self.data.iter().zip(&other.data).map(|(x, y)| f(x, y)).collect(),
        })
    }
}

impl<T: Clone> Tensor<T> {
    /// The same elements in row-major order under `shape` (same element count), free.
    pub fn reshape(&self, shape: &[usize]) -> Result<Self, TensorError> {
        let n = check_shape(shape)?;
        if n != self.data.len() {
            return shape_err(format!(
                "cannot reshape {:?} ({} elements) to {shape:?} ({n} elements)",
                self.shape,
                self.data.len()
            ));
        }
        Ok(Tensor {
            shape: shape.to_vec(),
            data: self.data.clone(),
        })
    }

    /// The sub-tensor with indices `range` on `axis` (same rank), free. The range must be
    /// non-empty and within the axis.
    pub fn slice(&self, axis: usize, range: Range<usize>) -> Result<Self, TensorError> {
        let Some(&d) = self.shape.get(axis) else {
            return shape_err(format!(
                "axis {axis} does not exist in a {}-dimensional tensor (shape {:?})",
                self.shape.len(),
                self.shape
            ));
        };
        if range.start >= range.end || range.end > d {
            return shape_err(format!(
                "slice {range:?} on axis {axis} of size {d} must be non-empty and within 0..{d}"
            ));
        }
        let inner: usize = self.shape[axis + 1..].iter().product();
        let outer: usize = self.shape[..axis].iter().product();
        let mut data = Vec::with_capacity(outer * range.len() * inner);
        for o in 0..outer {
            let base = o * d * inner;
            data.extend_from_slice(&self.data[base + range.start * inner..base + range.end * inner]);
        }
        let mut shape = self.shape.clone();
        shape[axis] = range.len();
        Ok(Tensor { shape, data })
    }

    /// The transpose of a 2-D tensor, free.
    pub fn transpose(&self) -> Result<Self, TensorError> {
        let &[r, c] = &self.shape[..] else {
            return shape_err(format!(
                "transpose needs a 2-D tensor, got shape {:?}",
                self.shape
            ));
        };
        let data = (0..c)
            .flat_map(|j| (0..r).map(move |i| i * c + j))
            .map(|k| self.data[k].clone())
            .collect();
        Ok(Tensor {
            shape: vec![c, r],
            data,
        })
    }
}

impl<T: Element> Tensor<T> {
    /// A tensor of secret inputs owned by `owner`, each of `format` (a width for integers,
    /// a [`FixedFormat`]); `values` (row-major) are the owner's secrets. Their count must
    /// match the shape and each must fit the format.
    pub fn input(
        ctx: &Ctx<T::Backend>,
        owner: PartyId,
        shape: &[usize],
        format: T::Format,
        values: Option<&[T::Clear]>,
    ) -> Result<Self, TensorError> {
        let n = check_shape(shape)?;
        if let Some(v) = values {
            if v.len() != n {
                return shape_err(format!(
                    "shape {shape:?} has {n} elements, {} values were given",
                    v.len()
                ));
            }
        }
        let data = (0..n)
            .map(|i| T::input(ctx, owner, format, values.map(|v| v[i])))
            .collect::<Result<_, _>>()?;
        Ok(Tensor {
            shape: shape.to_vec(),
            data,
        })
    }

    /// A tensor of public constants (row-major).
    pub fn constant(
        ctx: &Ctx<T::Backend>,
        shape: &[usize],
        format: T::Format,
        values: &[T::Clear],
    ) -> Result<Self, TensorError> {
        let data = values
            .iter()
            .map(|&v| T::constant(ctx, format, v))
            .collect::<Result<_, _>>()?;
        Self::from_vec(shape, data)
    }

    /// Marks every element as an output; the values (row-major) where this party learns them.
    pub fn reveal(&self) -> Result<Option<Vec<T::Clear>>, ProgramError> {
        // Every element is an output even where this party learns none of them: collect
        // the options only after all were revealed (collecting into Option stops at None).
        let each = self
            .data
            .iter()
            .map(|x| x.reveal())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(each.into_iter().collect())
    }

    /// Element-wise sum (equal shapes).
    pub fn add(&self, other: &Self) -> Result<Self, TensorError> {
        self.zip_with(other, |x, y| x.add(y))
    }

    /// Element-wise difference (equal shapes).
    pub fn sub(&self, other: &Self) -> Result<Self, TensorError> {
        self.zip_with(other, |x, y| x.sub(y))
    }

    /// Element-wise product (equal shapes).
    pub fn mul(&self, other: &Self) -> Result<Self, TensorError> {
        self.zip_with(other, |x, y| x.mul(y))
    }

    /// Matrix product of 2-D tensors (m × k)·(k × n) → m × n, each entry an
    /// [`Element::dot`]. Integers: m·n·k products and m·n·(k − 1) additions, wrapping.
    pub fn matmul(&self, other: &Self) -> Result<Self, TensorError> {
        let (&[m, k], &[k2, n]) = (&self.shape[..], &other.shape[..]) else {
            return shape_err(format!(
                "matmul needs two 2-D tensors, got shapes {:?} and {:?}",
                self.shape, other.shape
            ));
        };
        if k != k2 {
            return shape_err(format!("matmul of {m}×{k} by {k2}×{n}: inner dimensions differ"));
        }
        let mut data = Vec::with_capacity(m * n);
        for i in 0..m {
            let row: Vec<&T> = self.data[i * k..(i + 1) * k].iter().collect();
            for j in 0..n {
                let col: Vec<&T> = (0..k).map(|t| &other.data[t * n + j]).collect();
                data.push(T::dot(&row, &col));
            }
        }
        Ok(Tensor {
            shape: vec![m, n],
            data,
        })
    }
}
