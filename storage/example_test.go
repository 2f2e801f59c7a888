package storage_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

func Example() {
	dir, err := os.MkdirTemp("", "quizhost")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	db, err := storage.Open(context.Background(), filepath.Join(dir, "quiz.db"), storage.Options{Timeout: 2 * time.Second})
	if err != nil {
		log.Fatal(err) // errors.Is(err, storage.ErrInUse) when another process has it open
	}
	defer db.Close()

	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	post, err := db.CreatePost(context.Background(), questions.Post{GuildID: 1, ChannelID: 2, QuestionID: "net#1", Bank: "net",
		Correct: []string{"A", "C"}, OptionCount: 4, SelectCount: 2, OpenedAt: now})
	if err != nil {
		log.Fatal(err)
	}
	a, err := db.RecordAnswer(context.Background(), questions.Answer{PostID: post.ID, GuildID: 1, UserID: 42, InteractionID: 9,
		Choice: []string{"C", "A"}, At: now})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("right:", a.Right, "points:", a.Points, "choice:", a.Choice)

	// The same interaction delivered again: the first answer stands.
	_, err = db.RecordAnswer(context.Background(), questions.Answer{PostID: post.ID, GuildID: 1, UserID: 42, InteractionID: 9,
		Choice: []string{"C", "A"}, At: now})
	fmt.Println("again:", errors.Is(err, questions.ErrAlreadyAnswered))

	lb, err := db.Leaderboard(1, questions.PeriodWeek, questions.ByPoints, now, 0, 10)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("week starts", lb.Start.Format("Mon 2006-01-02"), "leader", lb.Entries[0].UserID, "with", lb.Entries[0].Points)
	// Output:
	// right: true points: 2 choice: [A C]
	// again: true
	// week starts Mon 2025-03-10 leader 42 with 2
}
