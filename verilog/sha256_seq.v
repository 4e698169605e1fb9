// SHA-256 compression (FIPS 180-4 §6.2.2), one round a clock cycle (TinyGarble's
// sequential SHA-256): 64 cycles compress one 512-bit block into the 256-bit chaining value.
// The round counter is public (it counts from its initial value), so the first round's load
// of the inputs, the round constant K[t], and the operand isolation of the message schedule
// (unused after round 47) and of the final feed-forward addition (only in round 63) cost no
// AND when garbled. The output is H + the state after round 63, valid in cycle 63 (zero
// before). Words are big-endian: H0 and W0 are the top 32 bits. Synthesize with
//   mixgc synth verilog/sha256_seq.v --once-ports g_h,e_block
// and run with --cycles 64.
module sha256_seq (
  input          clk,
  input  [255:0] g_h,
  input  [511:0] e_block,
  output [255:0] digest
);
  function [31:0] rotr(input [31:0] x, input integer n);
    rotr = (x >> n) | (x << (32 - n));
  endfunction

  function [31:0] k(input [5:0] i);
    case (i)
      6'd0: k = 32'h428a2f98;
      6'd1: k = 32'h71374491;
      6'd2: k = 32'hb5c0fbcf;
      6'd3: k = 32'he9b5dba5;
      6'd4: k = 32'h3956c25b;
      6'd5: k = 32'h59f111f1;
      6'd6: k = 32'h923f82a4;
      6'd7: k = 32'hab1c5ed5;
      6'd8: k = 32'hd807aa98;
      6'd9: k = 32'h12835b01;
      6'd10: k = 32'h243185be;
      6'd11: k = 32'h550c7dc3;
      6'd12: k = 32'h72be5d74;
      6'd13: k = 32'h80deb1fe;
      6'd14: k = 32'h9bdc06a7;
      6'd15: k = 32'hc19bf174;
      6'd16: k = 32'he49b69c1;
      6'd17: k = 32'hefbe4786;
      6'd18: k = 32'h0fc19dc6;
      6'd19: k = 32'h240ca1cc;
      6'd20: k = 32'h2de92c6f;
      6'd21: k = 32'h4a7484aa;
      6'd22: k = 32'h5cb0a9dc;
      6'd23: k = 32'h76f988da;
      6'd24: k = 32'h983e5152;
      6'd25: k = 32'ha831c66d;
      6'd26: k = 32'hb00327c8;
      6'd27: k = 32'hbf597fc7;
      6'd28: k = 32'hc6e00bf3;
      6'd29: k = 32'hd5a79147;
      6'd30: k = 32'h06ca6351;
      6'd31: k = 32'h14292967;
      6'd32: k = 32'h27b70a85;
      6'd33: k = 32'h2e1b2138;
      6'd34: k = 32'h4d2c6dfc;
      6'd35: k = 32'h53380d13;
      6'd36: k = 32'h650a7354;
      6'd37: k = 32'h766a0abb;
      6'd38: k = 32'h81c2c92e;
      6'd39: k = 32'h92722c85;
      6'd40: k = 32'ha2bfe8a1;
      6'd41: k = 32'ha81a664b;
      6'd42: k = 32'hc24b8b70;
      6'd43: k = 32'hc76c51a3;
      6'd44: k = 32'hd192e819;
      6'd45: k = 32'hd6990624;
      6'd46: k = 32'hf40e3585;
      6'd47: k = 32'h106aa070;
      6'd48: k = 32'h19a4c116;
      6'd49: k = 32'h1e376c08;
      6'd50: k = 32'h2748774c;
      6'd51: k = 32'h34b0bcb5;
      6'd52: k = 32'h391c0cb3;
      6'd53: k = 32'h4ed8aa4a;
      6'd54: k = 32'h5b9cca4f;
      6'd55: k = 32'h682e6ff3;
      6'd56: k = 32'h748f82ee;
      6'd57: k = 32'h78a5636f;
      6'd58: k = 32'h84c87814;
      6'd59: k = 32'h8cc70208;
      6'd60: k = 32'h90befffa;
      6'd61: k = 32'ha4506ceb;
      6'd62: k = 32'hbef9a3f7;
      default: k = 32'hc67178f2;
    endcase
  endfunction

  reg [5:0]   t = 6'd0;
  reg [255:0] regs = 256'd0;   // a … h, a on top
  reg [511:0] w = 512'd0;      // W[t] … W[t + 15], W[t] on top

  wire         first = t == 6'd0;
  wire [255:0] cur = first ? g_h : regs;
  wire [511:0] win = first ? e_block : w;

  wire [31:0] a = cur[255:224], b = cur[223:192], c = cur[191:160], d = cur[159:128];
  wire [31:0] e = cur[127:96], f = cur[95:64], g = cur[63:32], h = cur[31:0];
  wire [31:0] wt = win[511:480];

  wire [31:0] sum1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
  wire [31:0] ch = g ^ (e & (f ^ g));                 // (e & f) ^ (~e & g)
  wire [31:0] t1 = h + sum1 + ch + k(t) + wt;
  wire [31:0] sum0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
  wire [31:0] maj = ((a ^ b) & (a ^ c)) ^ a;          // (a & b) ^ (a & c) ^ (b & c)
  wire [31:0] t2 = sum0 + maj;
  wire [255:0] next = {t1 + t2, a, b, c, d + t1, e, f, g};

  // Message schedule: W[t + 16] = σ1(W[t + 14]) + W[t + 9] + σ0(W[t + 1]) + W[t].
  wire        schedule = t < 6'd48;
  wire [31:0] w0 = schedule ? wt : 32'd0;
  wire [31:0] w1 = schedule ? win[479:448] : 32'd0;
  wire [31:0] w9 = schedule ? win[223:192] : 32'd0;
  wire [31:0] w14 = schedule ? win[63:32] : 32'd0;
  wire [31:0] sigma0 = rotr(w1, 7) ^ rotr(w1, 18) ^ (w1 >> 3);
  wire [31:0] sigma1 = rotr(w14, 17) ^ rotr(w14, 19) ^ (w14 >> 10);
  wire [31:0] w16 = sigma1 + w9 + sigma0 + w0;

  // Feed-forward: H + the final state, in the last round only.
  wire         last = t == 6'd63;
  wire [255:0] fin = next & {256{last}};
  wire [255:0] hin = g_h & {256{last}};
  genvar j;
  generate
    for (j = 0; j < 8; j = j + 1) begin : feed_forward
      assign digest[32 * j +: 32] = hin[32 * j +: 32] + fin[32 * j +: 32];
    end
  endgenerate

  always @(posedge clk) begin
    regs <= next;
    w <= {win[479:0], w16};
    t <= t + 6'd1;
  end
endmodule
