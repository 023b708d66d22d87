import Testing
import World
