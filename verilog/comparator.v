// n-bit comparator: unsigned a < b, a == b, and signed a < b.
module comparator #(parameter N = 32) (
  input  [N-1:0] g_a,
  input  [N-1:0] e_b,
  output         lt,
  output         eq,
  output         lt_signed
);
  assign lt = g_a < e_b;
  assign eq = g_a == e_b;
  assign lt_signed = $signed(g_a) < $signed(e_b);
endmodule
