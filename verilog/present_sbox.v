// The PRESENT block cipher's 4-bit S-box (Bogdanov et al., CHES 2007) as a case table, the
// way an S-box is written in RTL, on the XOR of the parties' nibbles. Random logic like this
// is where ABC's area mapping beats the structural netlist.
module present_sbox (
  input      [3:0] g_a,
  input      [3:0] e_b,
  output reg [3:0] s
);
  always @* begin
    case (g_a ^ e_b)
      4'h0: s = 4'hc;
      4'h1: s = 4'h5;
      4'h2: s = 4'h6;
      4'h3: s = 4'hb;
      4'h4: s = 4'h9;
      4'h5: s = 4'h0;
      4'h6: s = 4'ha;
      4'h7: s = 4'hd;
      4'h8: s = 4'h3;
      4'h9: s = 4'he;
      4'ha: s = 4'hf;
      4'hb: s = 4'h8;
      4'hc: s = 4'h4;
      4'hd: s = 4'h7;
      4'he: s = 4'h1;
      default: s = 4'h2;
    endcase
  end
endmodule
