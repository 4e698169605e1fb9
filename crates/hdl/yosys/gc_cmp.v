// mixgc techmap for ordered comparisons, applied before `alumacc` (which would compute
// a < b as !(carry | a == b), about 2n ANDs): the sign of the (n+1)-bit difference through a
// ripple chain of one-AND borrows, n ANDs for n-bit operands, the known minimum.

(* techmap_celltype = "$lt $le $gt $ge" *)
module _80_gc_cmp (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  parameter _TECHMAP_CELLTYPE_ = "";
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  localparam W = (A_WIDTH > B_WIDTH ? A_WIDTH : B_WIDTH) + 1;
  localparam SWAP = _TECHMAP_CELLTYPE_ == "$gt" || _TECHMAP_CELLTYPE_ == "$le";
  localparam INVERT = _TECHMAP_CELLTYPE_ == "$ge" || _TECHMAP_CELLTYPE_ == "$le";
  wire [W-1:0] A_buf, B_buf;
  \$pos #(.A_SIGNED(A_SIGNED && B_SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(W)) A_conv (.A(A), .Y(A_buf));
  \$pos #(.A_SIGNED(A_SIGNED && B_SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(W)) B_conv (.A(B), .Y(B_buf));
  // less = sign(P - Q) with P - Q = P + ~Q + 1.
  wire [W-1:0] P = SWAP ? B_buf : A_buf;
  wire [W-1:0] Q = ~(SWAP ? A_buf : B_buf);
  wire [W-1:0] C;
  assign C[0] = 1'b1;
  genvar i;
  generate for (i = 0; i < W - 1; i = i + 1) begin : ripple
    assign C[i+1] = ((P[i] ^ C[i]) & (Q[i] ^ C[i])) ^ C[i];
  end endgenerate
  wire less = P[W-1] ^ Q[W-1] ^ C[W-1];
  assign Y = {{(Y_WIDTH-1){1'b0}}, less ^ INVERT};
endmodule
