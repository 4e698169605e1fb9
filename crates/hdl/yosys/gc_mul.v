// mixgc techmap for `$mul`, applied before `alumacc`: an array multiplier truncated to the
// product's width W, every row a ripple chain of one-AND full adders (TinyGarble thesis
// §3.2). Row i adds the W - i partial products a[j - i] & b[i] into bits i..W-1 with W - i - 1
// ANDs, so a W x W -> W product costs W(W+1)/2 + (W-1)(W-2)/2 ANDs: 993 for 32 bits. Signed
// operands are sign-extended to W bits first (the product modulo 2^W is the same).

(* techmap_celltype = "$mul" *)
module _80_gc_mul (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  localparam W = Y_WIDTH;
  wire [W-1:0] AA, BB;
  \$pos #(.A_SIGNED(A_SIGNED && B_SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(W)) A_conv (.A(A), .Y(AA));
  \$pos #(.A_SIGNED(A_SIGNED && B_SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(W)) B_conv (.A(B), .Y(BB));
  // S[i*W +: W]: the sum of rows 0..i; C[i*(W+1) + j]: the carry into bit j of row i.
  wire [W*W-1:0] S;
  wire [W*(W+1)-1:0] C;
  genvar i, j;
  generate
    for (j = 0; j < W; j = j + 1) begin : row0
      assign S[j] = AA[j] & BB[0];
    end
    for (i = 1; i < W; i = i + 1) begin : rows
      assign C[i*(W+1) + i] = 1'b0;
      for (j = 0; j < W; j = j + 1) begin : cols
        if (j < i) begin : keep
          assign S[i*W + j] = S[(i-1)*W + j];
        end else begin : add
          wire s = S[(i-1)*W + j];
          wire p = AA[j-i] & BB[i];
          wire c = C[i*(W+1) + j];
          assign S[i*W + j] = s ^ p ^ c;
          assign C[i*(W+1) + j + 1] = ((s ^ c) & (p ^ c)) ^ c;
        end
      end
    end
  endgenerate
  assign Y = S[(W-1)*W +: W];
endmodule
