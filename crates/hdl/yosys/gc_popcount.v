// mixgc techmap for sums of one-bit values (Yosys's `$macc` with only bit summands, e.g. a
// Hamming weight written as a loop of `count = count + bit`), applied before `maccmap`:
// popcount(N bits) = popcount(NA) + popcount(NB) + the remaining bit as carry-in, with
// NA = 2^(W-1) - 1 a full block, each addition a ripple chain of one-AND full adders. This
// costs N - popcount(N) ANDs, the minimum of Boyar and Peralta's counting circuits (158 for
// N = 160, where Yosys's Wallace tree of full adders takes 169).

(* techmap_celltype = "$macc" *)
module _80_gc_bitsum (A, B, Y);
  parameter CONFIG = 4'b0000;
  parameter CONFIG_WIDTH = 4;
  parameter A_WIDTH = 0;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  wire _TECHMAP_FAIL_ = A_WIDTH != 0 || B_WIDTH < 2;
  localparam CW = $clog2(B_WIDTH + 1);
  wire [CW-1:0] count;
  \$__gc_popcount #(.N(B_WIDTH)) pc (.B(B), .Y(count));
  assign Y = count;
endmodule

(* techmap_celltype = "$__gc_popcount" *)
module _80_gc_popcount (B, Y);
  parameter N = 1;
  localparam W = $clog2(N + 1);
  input [N-1:0] B;
  output [W-1:0] Y;
  // N = 1 + NA + NB with NA = 2^(W-1) - 1, a full block of width W - 1, and NB <= NA.
  localparam NA = (1 << (W - 1)) - 1;
  localparam NB = N - 1 - NA;
  localparam WA = W - 1;
  localparam WB = NB == 0 ? 1 : $clog2(NB + 1);
  generate
    if (N == 1) begin : one
      assign Y = B;
    end else if (N == 2) begin : two
      assign Y = {B[0] & B[1], B[0] ^ B[1]};
    end else begin : split
      wire [WA-1:0] ya;
      wire [WB-1:0] yb;
      \$__gc_popcount #(.N(NA)) pa (.B(B[NA:1]), .Y(ya));
      if (NB == 0) begin : empty
        assign yb = 1'b0;
      end else begin : rest
        \$__gc_popcount #(.N(NB)) pb (.B(B[N-1:NA+1]), .Y(yb));
      end
      localparam WM = WA > WB ? WA : WB;
      wire [WM-1:0] sum, x, co;
      \$alu #(.A_SIGNED(0), .B_SIGNED(0), .A_WIDTH(WA), .B_WIDTH(WB), .Y_WIDTH(WM))
        add (.A(ya), .B(yb), .CI(B[0]), .BI(1'b0), .X(x), .Y(sum), .CO(co));
      if (W > WM) begin : carry
        assign Y = {co[WM-1], sum};
      end else begin : no_carry
        assign Y = sum;
      end
    end
  endgenerate
endmodule
