// The AES S-box as a structural circuit (allowed for an S-box by issue #21): Boyar and
// Peralta's 32-AND, 83-XOR/XNOR circuit ("A new combinational logic minimization technique
// with applications to cryptology", SEA 2010; "A depth-16 circuit for the AES S-box", 2012),
// the same gates as mixgc's program library (crates/program/src/gadgets/aes.rs). Inside,
// x[0] is the most significant bit of the byte, as in the paper.
module aes_sbox (
  input  [7:0] in,
  output [7:0] out
);
  wire [0:7] x = in;
  // Top linear layer: 23 XORs give the 22 linear forms the middle multiplies.
  wire y14 = x[3] ^ x[5];
  wire y13 = x[0] ^ x[6];
  wire y9 = x[0] ^ x[3];
  wire y8 = x[0] ^ x[5];
  wire t0 = x[1] ^ x[2];
  wire y1 = t0 ^ x[7];
  wire y4 = y1 ^ x[3];
  wire y12 = y13 ^ y14;
  wire y2 = y1 ^ x[0];
  wire y5 = y1 ^ x[6];
  wire y3 = y5 ^ y8;
  wire t1 = x[4] ^ y12;
  wire y15 = t1 ^ x[5];
  wire y20 = t1 ^ x[1];
  wire y6 = y15 ^ x[7];
  wire y10 = y15 ^ t0;
  wire y11 = y20 ^ y9;
  wire y7 = x[7] ^ y11;
  wire y17 = y10 ^ y11;
  wire y19 = y10 ^ y8;
  wire y16 = t0 ^ y11;
  wire y21 = y13 ^ y16;
  wire y18 = x[0] ^ y16;

  // Nonlinear middle: GF(2^4) product of the two halves (9 ANDs) ...
  wire t2 = y12 & y15;
  wire t3 = y3 & y6;
  wire t4 = t3 ^ t2;
  wire t5 = y4 & x[7];
  wire t6 = t5 ^ t2;
  wire t7 = y13 & y16;
  wire t8 = y5 & y1;
  wire t9 = t8 ^ t7;
  wire t10 = y2 & y7;
  wire t11 = t10 ^ t7;
  wire t12 = y9 & y11;
  wire t13 = y14 & y17;
  wire t14 = t13 ^ t12;
  wire t15 = y8 & y10;
  wire t16 = t15 ^ t12;
  wire t17 = t4 ^ t14;
  wire t18 = t6 ^ t16;
  wire t19 = t9 ^ t14;
  wire t20 = t11 ^ t16;
  wire t21 = t17 ^ y20;
  wire t22 = t18 ^ y19;
  wire t23 = t19 ^ y21;
  wire t24 = t20 ^ y18;
  // ... inversion in GF(2^4) (5 ANDs) ...
  wire t25 = t21 ^ t22;
  wire t26 = t21 & t23;
  wire t27 = t24 ^ t26;
  wire t28 = t25 & t27;
  wire t29 = t28 ^ t22;
  wire t30 = t23 ^ t24;
  wire t31 = t22 ^ t26;
  wire t32 = t31 & t30;
  wire t33 = t32 ^ t24;
  wire t34 = t23 ^ t33;
  wire t35 = t27 ^ t33;
  wire t36 = t24 & t35;
  wire t37 = t36 ^ t34;
  wire t38 = t27 ^ t36;
  wire t39 = t29 & t38;
  wire t40 = t25 ^ t39;
  wire t41 = t40 ^ t37;
  wire t42 = t29 ^ t33;
  wire t43 = t29 ^ t40;
  wire t44 = t33 ^ t37;
  wire t45 = t42 ^ t41;
  // ... and the two GF(2^4) products with the inverse (18 ANDs).
  wire z0 = t44 & y15;
  wire z1 = t37 & y6;
  wire z2 = t33 & x[7];
  wire z3 = t43 & y16;
  wire z4 = t40 & y1;
  wire z5 = t29 & y7;
  wire z6 = t42 & y11;
  wire z7 = t45 & y17;
  wire z8 = t41 & y10;
  wire z9 = t44 & y12;
  wire z10 = t37 & y3;
  wire z11 = t33 & y4;
  wire z12 = t43 & y13;
  wire z13 = t40 & y5;
  wire z14 = t29 & y2;
  wire z15 = t42 & y9;
  wire z16 = t45 & y14;
  wire z17 = t41 & y8;

  // Bottom linear layer, with the affine constant 0x63 as XNORs.
  wire t46 = z15 ^ z16;
  wire t47 = z10 ^ z11;
  wire t48 = z5 ^ z13;
  wire t49 = z9 ^ z10;
  wire t50 = z2 ^ z12;
  wire t51 = z2 ^ z5;
  wire t52 = z7 ^ z8;
  wire t53 = z0 ^ z3;
  wire t54 = z6 ^ z7;
  wire t55 = z16 ^ z17;
  wire t56 = z12 ^ t48;
  wire t57 = t50 ^ t53;
  wire t58 = z4 ^ t46;
  wire t59 = z3 ^ t54;
  wire t60 = t46 ^ t57;
  wire t61 = z14 ^ t57;
  wire t62 = t52 ^ t58;
  wire t63 = t49 ^ t58;
  wire t64 = z4 ^ t59;
  wire t65 = t61 ^ t62;
  wire t66 = z1 ^ t63;
  wire s0 = t59 ^ t63;
  wire s6 = ~(t56 ^ t62);
  wire s7 = ~(t48 ^ t60);
  wire t67 = t64 ^ t65;
  wire s3 = t53 ^ t66;
  wire s4 = t51 ^ t66;
  wire s5 = t47 ^ t65;
  wire s1 = ~(t64 ^ s3);
  wire s2 = ~(t55 ^ t67);

  assign out = {s0, s1, s2, s3, s4, s5, s6, s7};
endmodule
