// TinyGarble's Compare 1024 (thesis Table 3.1, 1,023 non-XOR gates): equality of two
// 1024-bit values, as `mixgc ops --table` reads the entry. Ordered comparisons are in
// comparator.v (n ANDs for n bits).
module compare1024 (
  input  [1023:0] g_a,
  input  [1023:0] e_b,
  output          eq
);
  assign eq = g_a == e_b;
endmodule
