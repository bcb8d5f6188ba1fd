// An emulated Raspberry Pi Pico on its board: the RP2040 (rp2040js) runs a UF2 file, and this
// script models the electronics around the chip at pin level, from the board's board.json:
//
// - the CD74HC4067 multiplexers follow their S0-S3 and EN pins; the signal line is an RC node
//   (the part's on-resistance, the pull-up or pull-down, the line's and the multiplexers'
//   capacitance), so a read taken too soon after switching sees the previous channel's level;
// - reed switches close to ground against the pad's pull-up; linear hall sensors drive the ADC
//   pin with the voltage the host gives for each sensor (plus noise); a broken input floats;
// - the four buttons short their pulled-up pins to ground while held;
// - the WS2812B chain is decoded from the data pin's waveform in the chip's own time: a bit
//   whose high time is outside the datasheet's 0.40/0.80 us +-150 ns is an error, a low over
//   50 us latches the frame;
// - the watchdog resets the chip (the host restarts this process with the reason);
// - the USB serial port is the board's port: its bytes go to the host and back.
//
// It talks to the host (firmware_bridge/boards/rp2040.py) in JSON lines on stdin and stdout.
// In: {"usb": hex} bytes from the referee; {"v": [sensor, value16, noise16]} a sensor's level
// (a linear sensor's reading as read_u16 would give it; a switch's pin level: 0 closed, else
// open); {"dead": sensor} an
// input wire broken; {"button": name, "down": bool}; {"hang": true} the core stops (its
// timers and watchdog go on); {"after": ns, "id": k} answered {"alarm": k, "at": ns} once that
// much of the chip's time has passed (the longest a hand holds a button waiting for the
// firmware to report it, however slowly the chip runs here); {"quit": true}.
// With "mark": true, a level change is answered {"applied": sensor, "at": ns} and the USB
// bytes {"taken": ns} once the chip has read the last of them (the benchmark's clock).
// Out: {"usb": hex, "at": ns}; {"leds": hex, "at": ns} the pixels the chain latched (in wire
// order, three bytes each) and when its last bit ended; {"ready": ns} the USB port
// is up; {"watchdog": ns} the chip reset by its watchdog; {"error": text}; {"stats": ...}.
//
// Time is the chip's: 125 MHz cycles. The emulation is throttled so the chip never runs ahead
// of the wall clock (its timers, debounce and watchdog then mean what they say), and reports
// how far it fell behind.

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Simulator, USBCDC, ConsoleLogger, LogLevel } from 'rp2040js';

const FLASH_START = 0x10000000;
const VDD = 3.3;
const ADC_MAX = 4095;
// CD74HC4067 at 3.3 V (TI datasheet SCHS209): on-resistance about 70-160 ohm; each part's
// common I/O capacitance about 90 pF (CIO, "Switch Capacitance"), its channel inputs 5 pF.
const MUX_ON_OHMS = 130;
const MUX_COMMON_PF = 90;
const LINE_PF = 20; // the board's wiring to the pin, and the pin's own
// RP2040 pad pull-up / pull-down: 50-80 kohm (RP2040 datasheet, GPIO electrical specs);
const PULL_OHMS = 80000; // the worst case: a board that reads right here reads right on every chip
const SWITCH_OHMS = 1; // a closed reed switch to ground
const SENSOR_OHMS = 50; // a linear hall sensor's push-pull output (DRV5053)
// Logic thresholds at IOVDD 3.3 V (RP2040 datasheet: VIH 2.0 V min, VIL 0.8 V max); with the
// Schmitt trigger the pin switches at about these.
const V_HIGH = 2.0;
const V_LOW = 0.8;
// WS2812B (Worldsemi datasheet): T0H 0.4 us, T1H 0.8 us, +-150 ns; reset (latch) over 50 us.
const T0H = 400;
const T1H = 800;
const TOLERANCE = 150;
const LATCH_NS = 50000;

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, ...rest] = arg.replace(/^--/, '').split('=');
    return [key, rest.join('=')];
  }),
);
const board = JSON.parse(readFileSync(args.board, 'utf8'));
const sensorsConf = board.sensors;
const linear = sensorsConf.kind === 'linear';
const pullDownOhms = Number(args.pulldown || (linear ? 10000 : 0)); // the SIG pull-down (the guide's)
const extraPullUpOhms = Number(args.pullup || 0); // an external pull-up on SIG, if fitted

function out(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const simulator = new Simulator();
const mcu = simulator.rp2040;
const clock = simulator.clock;
mcu.logger = new ConsoleLogger(LogLevel.Error);
const rom = readFileSync(args.bootrom);
mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4));
loadUf2(readFileSync(args.uf2));
const watchdog = mcu.peripherals[0x40058];
// The watchdog's REASON register survives its reset (1: it timed out, 2: forced, as
// machine.reset() does): the new chip starts with it, as reset_cause() reads it.
watchdog.reason = Number(args.reason || 0);

function loadUf2(data) {
  for (let at = 0; at + 512 <= data.length; at += 512) {
    const block = data.subarray(at, at + 512);
    const view = new DataView(block.buffer, block.byteOffset, 512);
    if (view.getUint32(0, true) !== 0x0a324655 || view.getUint32(4, true) !== 0x9e5d5157) {
      throw new Error(`block ${at / 512} is not a UF2 block`);
    }
    if (view.getUint32(8, true) & 1) continue; // not for the main flash
    const address = view.getUint32(12, true);
    const size = view.getUint32(16, true);
    mcu.flash.set(block.subarray(32, 32 + size), address - FLASH_START);
  }
}

// -- sensors and multiplexers ------------------------------------------------------------------
const count = sensorsConf.count;
const level = new Array(count).fill(linear ? 0 : 65535); // what each sensor gives, read_u16 units
const noise = new Array(count).fill(0);
const dead = new Set();
const selectPins = sensorsConf.select.map((n) => mcu.gpio[n]);
const enablePins = (sensorsConf.enable || []).map((n) => mcu.gpio[n]);
const bankPins = (sensorsConf.bank_select || []).map((n) => mcu.gpio[n]);
const signals = sensorsConf.signal;
// With EN lines every multiplexer's common pin is joined on the signal line; behind a
// second-level multiplexer only its common and, through its switch, the selected one's.
const onLine = bankPins.length ? 2 : Math.ceil(Math.ceil(count / 16) / signals.length);
const lineFarads = (LINE_PF + MUX_COMMON_PF * onLine) * 1e-12;

function bits(pins) {
  let value = 0;
  pins.forEach((pin, k) => {
    if (pin.outputValue) value |= 1 << k;
  });
  return value;
}

// Which sensor each signal pin is joined to now (or -1: none, the line floats).
function connected(signalIndex) {
  const channel = bits(selectPins);
  if (enablePins.length) {
    const on = enablePins.map((pin, bank) => (pin.outputValue ? -1 : bank)).filter((b) => b >= 0);
    if (on.length !== 1) return on.length ? -2 : -1; // two banks on: they fight
    return on[0] * 16 + channel;
  }
  if (bankPins.length) {
    const bank = signalIndex * 16 + bits(bankPins);
    return bank * 16 + channel;
  }
  return channel; // one multiplexer, enabled for good
}

// Noise from a seeded generator (mulberry32), so a run can be repeated.
let seed = Number(args.seed || 1) >>> 0;
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let r = seed;
  r = Math.imul(r ^ (r >>> 15), r | 1);
  r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
  return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
}

function gauss() {
  let u = 0;
  let v = 0;
  while (u === 0) u = random();
  while (v === 0) v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

// The Thevenin source driving a signal line now: [volts, ohms], or null when nothing drives it.
function source(signalIndex) {
  const pin = mcu.gpio[signals[signalIndex]];
  const drivers = [];
  const sensor = connected(signalIndex);
  if (sensor >= 0 && sensor < count && !dead.has(sensor)) {
    if (linear) {
      const volts = (Math.max(0, Math.min(65535, level[sensor])) / 65535) * VDD;
      drivers.push([volts, SENSOR_OHMS + MUX_ON_OHMS]);
    } else if (level[sensor] === 0) {
      drivers.push([0, SWITCH_OHMS + MUX_ON_OHMS]); // a closed switch: the pin's level, 0
    }
  } else if (sensor === -2) {
    drivers.push([VDD / 2, MUX_ON_OHMS]);
  }
  if (pin.pullupEnabled) drivers.push([VDD, PULL_OHMS]);
  if (pin.pulldownEnabled) drivers.push([0, PULL_OHMS]);
  if (extraPullUpOhms) drivers.push([VDD, extraPullUpOhms]);
  if (pullDownOhms) drivers.push([0, pullDownOhms]);
  if (!drivers.length) return null;
  let conductance = 0;
  let current = 0;
  for (const [volts, ohms] of drivers) {
    conductance += 1 / ohms;
    current += volts / ohms;
  }
  return [current / conductance, 1 / conductance];
}

// Each signal line: its voltage at `since`, heading for `target` with time constant `tau`.
const lines = signals.map(() => ({ volts: 0, since: 0, target: 0, tau: 1 }));

function voltsNow(index) {
  const line = lines[index];
  const elapsed = clock.nanos - line.since;
  return line.target + (line.volts - line.target) * Math.exp(-elapsed / line.tau);
}

const edgeAlarms = signals.map((_, index) => clock.createAlarm(() => updateDigital(index)));

function retarget(index) {
  const line = lines[index];
  line.volts = voltsNow(index);
  line.since = clock.nanos;
  const driven = source(index);
  if (driven) {
    line.target = driven[0];
    line.tau = driven[1] * lineFarads * 1e9; // ns
  } else {
    line.target = line.volts; // floating: keeps its charge
    line.tau = 1e12;
  }
  if (!linear) updateDigital(index);
}

// A switch board's signal pin: its logic level now, and an alarm at the next threshold crossing.
function updateDigital(index) {
  const line = lines[index];
  const pin = mcu.gpio[signals[index]];
  const volts = voltsNow(index);
  const high = pin.inputValue ? volts > V_LOW : volts >= V_HIGH;
  pin.setInputValue(high);
  const threshold = high ? V_LOW : V_HIGH;
  const crosses = high ? line.target < threshold : line.target > threshold;
  edgeAlarms[index].cancel();
  if (crosses) {
    const ratio = (threshold - line.target) / (volts - line.target);
    if (ratio > 0 && ratio < 1) {
      edgeAlarms[index].schedule(Math.max(1, -line.tau * Math.log(ratio)));
    }
  }
}

function retargetAll() {
  for (let i = 0; i < signals.length; i++) retarget(i);
}

// How soon after the multiplexers switch the firmware reads the signal (the settling time it
// gives the line): the shortest gap seen, reported in the stats.
let switchedAt = -1;
let settleMin = Infinity;
function reading() {
  if (switchedAt >= 0) {
    settleMin = Math.min(settleMin, clock.nanos - switchedAt);
    switchedAt = -1;
  }
}
for (const pin of [...selectPins, ...enablePins, ...bankPins]) {
  pin.addListener(() => {
    switchedAt = clock.nanos;
    retargetAll();
  });
}
if (!linear) {
  const sioRead = mcu.sio.readUint32.bind(mcu.sio);
  mcu.sio.readUint32 = (offset) => {
    if (offset === 4) reading(); // GPIO_IN: the pins read
    return sioRead(offset);
  };
}
for (const n of signals) {
  mcu.gpio[n].addListener(() => retargetAll()); // its pulls switched on or off
}

// A conversion's result, given when its sample time is over (one at a time: the ADC starts
// one only when it is not busy).
let adcValue = 0;
const adcDone = clock.createAlarm(() => mcu.adc.completeADCRead(adcValue, false));
if (linear) {
  mcu.adc.onADCRead = (channel) => {
    reading();
    const index = signals.indexOf(26 + channel);
    let value = 0;
    if (index >= 0) {
      const volts = voltsNow(index);
      const sensor = connected(index);
      const jitter = sensor >= 0 && sensor < count ? (noise[sensor] / 65535) * VDD * gauss() : 0;
      value = Math.round(((volts + jitter) / VDD) * ADC_MAX);
    }
    adcValue = Math.max(0, Math.min(ADC_MAX, value));
    adcDone.schedule(mcu.adc.sampleTime * 1000);
  };
}

// -- busy waits ------------------------------------------------------------------------------------
// The firmware waits microseconds by spinning: on the timer (the multiplexers' settling,
// sleep_us) and on the ADC's READY bit. A Pico spins about six times a microsecond; here each
// spin costs a dozen emulated instructions, and these spins were over half of all the
// instructions the chip ran. When the same instruction reads again a register that cannot
// have changed yet (the timer within the same microsecond, CS while a conversion runs), the
// chip's clock goes on to the moment it changes: the loop ends at the same tick of the timer,
// or the same conversion's end, as it would on the chip, at most one spin (a fraction of a
// microsecond) sooner, and everything else keeps its timing.
const TIMERAWL = 0x28;
const ADC_CS = 0x00;
let timerPc = -1; // the instruction that read the timer last, and the microsecond it read
let timerMicros = -1;
let adcPc = -1; // the instruction that read the ADC's CS last

function skipTo(nanos) {
  if (nanos > clock.nanos) clock.tick(nanos - clock.nanos);
}

const timerPeripheral = mcu.peripherals[0x40054];
const timerRead = timerPeripheral.readUint32.bind(timerPeripheral);
timerPeripheral.readUint32 = (offset) => {
  if (offset === TIMERAWL) {
    const pc = mcu.core.PC;
    if (pc === timerPc && Math.floor(clock.nanos / 1000) === timerMicros) {
      skipTo((timerMicros + 1) * 1000);
    }
    timerPc = pc;
    timerMicros = Math.floor(clock.nanos / 1000);
  }
  return timerRead(offset);
};
const adcRead = mcu.adc.readUint32.bind(mcu.adc);
mcu.adc.readUint32 = (offset) => {
  if (offset === ADC_CS) {
    const pc = mcu.core.PC;
    if (pc === adcPc && mcu.adc.busy) skipTo(adcDone.nanos); // the conversion's end
    adcPc = pc;
  }
  return adcRead(offset);
};

// -- buttons ---------------------------------------------------------------------------------------
const buttonPins = board.buttons.pins || {};
for (const n of Object.values(buttonPins)) mcu.gpio[n].setInputValue(true);

// -- the WS2812B chain -----------------------------------------------------------------------------
const ledPin = board.leds.count ? mcu.gpio[board.leds.pin] : null;
const ledBytes = [];
let ledBits = 0;
let ledByte = 0;
let riseAt = -1;
let ledErrors = 0;
const latch = clock.createAlarm(() => {
  // A write the hang command stopped half-way is the hang's, not the firmware's: not reported
  // (the chain would show it; the watchdog's restart writes the whole frame again).
  if (ledBytes.length && !hung) {
    out({ leds: Buffer.from(ledBytes).toString('hex'), at: clock.nanos - LATCH_NS });
  }
  ledBytes.length = 0;
  ledBits = 0;
  ledByte = 0;
});
if (ledPin) {
  ledPin.addListener((state) => {
    const now = clock.nanos;
    if (state === 1) {
      riseAt = now;
      latch.cancel();
    } else if (state === 0 && riseAt >= 0) {
      const high = now - riseAt;
      riseAt = -1;
      let bit;
      if (Math.abs(high - T0H) <= TOLERANCE) bit = 0;
      else if (Math.abs(high - T1H) <= TOLERANCE) bit = 1;
      else {
        ledErrors++;
        if (ledErrors <= 5) out({ error: `WS2812B bit ${ledBytes.length * 8 + ledBits}: high for ${high} ns` });
        bit = high > (T0H + T1H) / 2 ? 1 : 0;
      }
      ledByte = (ledByte << 1) | bit;
      if (++ledBits === 8) {
        ledBytes.push(ledByte);
        ledBits = 0;
        ledByte = 0;
      }
      latch.schedule(LATCH_NS);
    }
  });
}

// -- watchdog --------------------------------------------------------------------------------------
watchdog.onWatchdogTrigger = () => {
  const core = mcu.core;
  out({ watchdog: clock.nanos, forced: watchdog.reason === 2, pc: core.PC, lr: core.registers[14] });
  simulator.stop();
  setTimeout(() => process.exit(0), 10);
};

// -- USB -------------------------------------------------------------------------------------------
const cdc = new USBCDC(mcu.usbCtrl);
const pending = [];
let marking = false; // say when the chip has taken the last of these bytes
cdc.onDeviceConnected = () => out({ ready: clock.nanos });
cdc.onSerialData = (buffer) => out({ usb: Buffer.from(buffer).toString('hex'), at: clock.nanos });
// The chip arms its OUT endpoint to receive; rp2040js's CDC completes the transfer at once,
// with nothing when the host has nothing to send, and TinyUSB arms it again: an interrupt
// storm a real host never causes (it sends OUT packets only with data), which took most of
// the core's time. A transfer armed while there is nothing to send waits for the host's next
// bytes, as on a real bus. Also: when the chip has taken the last byte the host sent (for
// the benchmark's LED latency).
const endpointRead = mcu.usbCtrl.onEndpointRead;
let armed = null;
function read(endpoint, size) {
  const before = cdc.txFIFO.itemCount;
  endpointRead(endpoint, size);
  if (before && !cdc.txFIFO.itemCount && !pending.length && marking) {
    out({ taken: clock.nanos, at: clock.nanos });
  }
}
mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
  if (endpoint === cdc.outEndpoint && !cdc.txFIFO.itemCount && !pending.length) {
    armed = [endpoint, size];
    return;
  }
  read(endpoint, size);
};

function feedUsb() {
  while (pending.length && !cdc.txFIFO.full) cdc.sendSerialByte(pending.shift());
  if (armed && cdc.txFIFO.itemCount) {
    const [endpoint, size] = armed;
    armed = null;
    read(endpoint, size);
  }
}

// -- the host's words ------------------------------------------------------------------------------
let hung = false;
createInterface({ input: process.stdin }).on('line', (text) => {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    out({ error: `not JSON: ${text.slice(0, 60)}` });
    return;
  }
  if (message.usb) {
    for (const byte of Buffer.from(message.usb, 'hex')) pending.push(byte);
    marking = Boolean(message.mark);
    feedUsb(); // at once, as a host's packet would arrive
  } else if (message.v) {
    const [sensor, value, jitter] = message.v;
    level[sensor] = value;
    noise[sensor] = jitter || 0;
    dead.delete(sensor);
    retargetAll();
    if (message.mark) out({ applied: sensor, at: clock.nanos });
  } else if (message.dead !== undefined) {
    dead.add(message.dead);
    retargetAll();
  } else if (message.button) {
    const n = buttonPins[message.button];
    if (n !== undefined) mcu.gpio[n].setInputValue(!message.down);
  } else if (message.after !== undefined) {
    const alarm = clock.createAlarm(() => out({ alarm: message.id, at: clock.nanos }));
    alarm.schedule(Math.max(1, Number(message.after)));
  } else if (message.hang) {
    hung = true;
  } else if (message.quit) {
    process.exit(0);
  }
});
process.stdin.on('end', () => process.exit(0));

// -- the run loop ----------------------------------------------------------------------------------
const CYCLE_NS = 8; // 125 MHz
const SLICE_NS = 2_000_000; // run 2 ms of the chip's time, then look at the world
const startWall = process.hrtime.bigint();
let behindMax = 0;

function run() {
  const wall = Number(process.hrtime.bigint() - startWall);
  const until = Math.min(clock.nanos + SLICE_NS, wall + SLICE_NS);
  const core = mcu.core;
  feedUsb();
  while (clock.nanos < until) {
    if (hung || core.waiting) {
      // Asleep (WFE/WFI) or hung: nothing happens until the next alarm, or the world's input.
      const next = clock.nextAlarm ? clock.nanosToNextAlarm : Infinity;
      clock.tick(Math.max(CYCLE_NS, Math.min(next, until - clock.nanos)));
    } else {
      clock.tick(core.executeInstruction() * (1e9 / mcu.clkSys));
    }
  }
  behindMax = Math.max(behindMax, wall - clock.nanos);
  const ahead = clock.nanos - Number(process.hrtime.bigint() - startWall);
  setTimeout(run, ahead > 1_000_000 ? Math.floor(ahead / 1e6) : 0);
}

setInterval(() => {
  const settle = Number.isFinite(settleMin) ? settleMin : null;
  out({ stats: { chip_ns: clock.nanos, behind_ns: behindMax, settle_ns: settle } });
}, 5000).unref();
mcu.core.PC = FLASH_START;
retargetAll();
run();
