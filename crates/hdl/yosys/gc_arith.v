// mixgc techmap for Yosys's arithmetic cells: ripple-carry chains of one-AND full adders
// (TinyGarble thesis §3.2, "synthesis library"): carry = ((a ^ c) & (b ^ c)) ^ c and
// sum = a ^ b ^ c, so an n-bit addition costs n - 1 ANDs and a comparison n. The `_80_`
// prefix makes these win over Yosys's own `_90_` maps (carry-lookahead, 2-3 ANDs a bit).

(* techmap_celltype = "$alu" *)
module _80_gc_alu (A, B, CI, BI, X, Y, CO);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] X, Y;
  input CI, BI;
  output [Y_WIDTH-1:0] CO;
  wire [Y_WIDTH-1:0] A_buf, B_buf;
  \$pos #(.A_SIGNED(A_SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(Y_WIDTH)) A_conv (.A(A), .Y(A_buf));
  \$pos #(.A_SIGNED(B_SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(Y_WIDTH)) B_conv (.A(B), .Y(B_buf));
  wire [Y_WIDTH-1:0] AA = A_buf;
  wire [Y_WIDTH-1:0] BB = BI ? ~B_buf : B_buf;
  wire [Y_WIDTH:0] C;
  assign C[0] = CI;
  genvar i;
  generate for (i = 0; i < Y_WIDTH; i = i + 1) begin : ripple
    assign C[i+1] = ((AA[i] ^ C[i]) & (BB[i] ^ C[i])) ^ C[i];
  end endgenerate
  assign CO = C[Y_WIDTH:1];
  assign X = AA ^ BB;
  assign Y = X ^ C[Y_WIDTH-1:0];
endmodule

(* techmap_celltype = "$fa" *)
module _80_gc_fa (A, B, C, X, Y);
  parameter WIDTH = 1;
  input [WIDTH-1:0] A, B, C;
  output [WIDTH-1:0] X, Y;
  assign X = ((A ^ C) & (B ^ C)) ^ C;
  assign Y = A ^ B ^ C;
endmodule
