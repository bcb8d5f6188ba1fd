// A small line protocol over Ludii (https://github.com/Ludeme/Ludii), for tools/ludii_engine.py:
// it loads a game, lists each legal move with the board it produces, applies one, lets one of
// Ludii's own AIs choose, and counts random playouts. The Python side matches Ludii's moves to
// the project's by the board they produce and speaks the engine protocol (docs/engine.md).
//
// Lines in:  load FILE[|OPTION;OPTION...] | ai NAME | reset | moves | apply INDEX
//            | think MILLIS | warm MILLIS | bench MILLIS | quit
// Lines out: ok ... | move INDEX BOARD ... end | chose BOARD | error TEXT
// BOARD: "mover=N" then "LABEL:OWNER:NAME" for every occupied cell, separated by spaces.

import game.Game;
import game.types.board.SiteType;
import main.collections.FastArrayList;
import other.AI;
import other.GameLoader;
import other.context.Context;
import other.move.Move;
import other.state.container.ContainerState;
import other.topology.Cell;
import other.trial.Trial;
import utils.AIFactory;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

public final class LudiiBridge {
    private Game game;
    private Context context;
    private String aiName = "UCT";
    private final AI[] ais = new AI[3];
    private final PrintStream out;

    private LudiiBridge(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        LudiiBridge bridge = new LudiiBridge(out);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) continue;
            if (line.equals("quit")) break;
            try {
                bridge.handle(line);
            } catch (Exception e) {
                out.println("error " + e.toString().replace('\n', ' '));
            }
        }
        System.exit(0);
    }

    private void handle(String line) throws Exception {
        String[] words = line.split(" ", 3);
        switch (words[0]) {
            case "load": {
                String[] parts = line.substring(5).split("\\|");
                List<String> options = new ArrayList<>();
                if (parts.length > 1) options.addAll(Arrays.asList(parts[1].split(";")));
                game = GameLoader.loadGameFromFile(new File(parts[0].trim()), options);
                reset();
                out.println("ok " + game.name());
                break;
            }
            case "ai":
                aiName = line.substring(3).trim();
                Arrays.fill(ais, null);
                out.println("ok");
                break;
            case "reset":
                reset();
                out.println("ok");
                break;
            case "moves": {
                FastArrayList<Move> moves = game.moves(context).moves();
                for (int i = 0; i < moves.size(); i++) {
                    out.println("move " + i + " " + boardAfter(moves.get(i)));
                }
                out.println("end");
                break;
            }
            case "apply": {
                FastArrayList<Move> moves = game.moves(context).moves();
                game.apply(context, moves.get(Integer.parseInt(words[1])));
                out.println("ok");
                break;
            }
            case "think": {
                int mover = context.state().mover();
                if (ais[mover] == null) {
                    ais[mover] = AIFactory.createAI(aiName);
                    ais[mover].initAI(game, mover);
                }
                double seconds = Integer.parseInt(words[1]) / 1000.0;
                Move move = ais[mover].selectAction(game, new Context(context), seconds, -1, -1);
                out.println("chose " + boardAfter(move));
                break;
            }
            case "warm":
            case "bench": {
                long until = System.nanoTime() + Long.parseLong(words[1]) * 1_000_000L;
                long playouts = 0, plies = 0;
                long start = System.nanoTime();
                while (System.nanoTime() < until) {
                    Context playout = new Context(game, new Trial(game));
                    game.start(playout);
                    game.playout(playout, null, 1.0, null, 0, -1, ThreadLocalRandom.current());
                    playouts++;
                    plies += playout.trial().numMoves() - playout.trial().numInitialPlacementMoves();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                out.println("ok playouts " + playouts + " plies " + plies + " seconds " + seconds);
                break;
            }
            default:
                out.println("error unknown command " + words[0]);
        }
    }

    private void reset() {
        context = new Context(game, new Trial(game));
        game.start(context);
        Arrays.fill(ais, null);
    }

    private String boardAfter(Move move) {
        Context after = new Context(context);
        game.apply(after, move);
        StringBuilder text = new StringBuilder();
        text.append("mover=").append(after.trial().over() ? 0 : after.state().mover());
        ContainerState cells = after.state().containerStates()[0];
        List<Cell> all = game.board().topology().cells();
        for (Cell cell : all) {
            int site = cell.index();
            int what = cells.what(site, SiteType.Cell);
            if (what == 0) continue;
            int who = cells.who(site, SiteType.Cell);
            String name = game.equipment().components()[what].name();
            text.append(' ').append(cell.label()).append(':').append(who).append(':').append(name);
        }
        return text.toString();
    }
}
